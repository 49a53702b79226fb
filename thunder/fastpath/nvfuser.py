"""nvFuser region call (placeholder until the region fast path lands)."""


def install() -> None:
    pass


def uninstall() -> None:
    pass
