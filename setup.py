"""Ships templates/ and static/ inside the wheel, as socialsite/site_files/.

Everything else is declared in pyproject.toml. The two folders stay at the top
of the repository (docs and tests name them there), but a wheel installs
packages only: pyproject.toml's `packages.find` cannot map a folder to a
package of another name, so build_py is told here that each folder is a data
package under `socialsite.site_files` (docs/operations.md#installing-the-package;
socialsite/settings.py finds them there).
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SITE_FILES = ("templates", "static")


def data_packages() -> dict[str, str]:
    """{package name: folder} for each folder and every folder inside it (each
    listed, or setuptools warns that it looks like a package left out)."""
    found = {}
    for top in SITE_FILES:
        for folder in [Path(top), *sorted(p for p in Path(top).rglob("*") if p.is_dir())]:
            found[".".join(("socialsite", "site_files", *folder.parts))] = folder.as_posix()
    return found


class BuildPy(build_py):
    def finalize_options(self):
        super().finalize_options()
        packages = data_packages()
        self.packages = [*self.packages, *packages]
        self.package_dir.update(packages)
        self.package_data = {**self.package_data, **{name: ["*"] for name in packages}}


setup(cmdclass={"build_py": BuildPy})
