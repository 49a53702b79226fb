"""Can calling_conventions.py find a bug? Runs its search with one plausible guard bug planted at a time.

* ``no-alias-check``: the guard leaves out the alias check, so an entry made for distinct tensors also takes the
  same tensor twice;
* ``numbers-by-value``: numbers are compared by value alone, so 3 matches an entry made for 3.0;
* ``alias-args-only``: the general alias check flattens only the positional arguments, not the keywords. This
  guard is too strict, not too lenient: where it says no, upstream's path decides, exactly. Outcomes and hit/miss
  counts cannot show it; the search's count of hits that upstream's path served although their entry had a guard
  can.

    .venv/bin/python benchmarks_results/s18_scripts/calling_conventions_mutants.py MUTANT [--sequences N] [--only ...]
"""

import sys

import thunder.fastpath.guard as guard


def check_numbers_by_value(self, sid, args):
    if sid == "check_number_type_and_value" and args[0].name not in self.cache_info_items:
        self.miss_unless(f"{args[0].name} == {self.constant(args[1])}")
        self.checked.add(args[0].name)
        return
    original_check_value(self, sid, args)


def alias_string_of_args_only(args, kwargs):
    return guard.alias_string(args, {})


original_check_value = guard.GuardBuilder.check_value


def plant(mutant):
    """Plants one mutant in ``thunder.fastpath.guard``, for every guard built afterwards."""
    if mutant == "no-alias-check":
        guard.GuardBuilder.alias_check = lambda self, expected, args, kwargs: []
    elif mutant == "alias-args-only":
        guard._GLOBALS["__alias_string"] = alias_string_of_args_only
    elif mutant == "numbers-by-value":
        guard.GuardBuilder.check_value = check_numbers_by_value
    else:
        raise SystemExit(f"unknown mutant {mutant}")


if __name__ == "__main__":
    from calling_conventions import main

    mutant = sys.argv.pop(1)
    plant(mutant)
    print(f"mutant: {mutant}")
    main()
