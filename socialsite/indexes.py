"""Find every MongoEngine document the apps declare and create their indexes."""

from importlib import import_module

import mongoengine as me
from django.apps import apps
from mongoengine.base import common


def all_documents() -> list[type[me.Document]]:
    for config in apps.get_app_configs():
        for module in ("documents",):
            try:
                import_module(f"{config.name}.{module}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{config.name}.{module}":
                    raise
    found = {}
    for cls in common._document_registry.values():
        if (
            issubclass(cls, me.Document)
            and not cls._meta.get("abstract")
            and "collection" in cls._meta
        ):
            found[cls._get_collection_name()] = cls
    return [found[name] for name in sorted(found)]


def ensure_all() -> list[tuple[str, str]]:
    """Create every declared index; returns the (collection, index) pairs created."""
    created = []
    for document in all_documents():
        collection = document._get_collection()
        before = set(collection.index_information())
        document.ensure_indexes()
        after = set(collection.index_information())
        created += [(collection.name, name) for name in sorted(after - before) if name != "_id_"]
    return created
