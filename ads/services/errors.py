"""The ad services' one error: its message is shown to the user as is."""


class AdsError(ValueError):
    """A campaign or unit change that cannot be made; `str(error)` says why,
    in words a form can show."""
