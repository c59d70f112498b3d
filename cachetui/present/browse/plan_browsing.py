"""The browser's plan view as plain state: the roots of `--plan ENV`, each with its status, the status facet.

Everything shown comes from `plan()` (`core/query/plan.py`), the rule `cachetui plan` prints too: this module only
filters the roots by status. One frozen `PlanBrowsing`, changed by pure transitions.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

from cachetui.core.model.environment import Environment
from cachetui.core.query.plan import BUILD, CACHED, EXTERNAL, PARTLY, STATUSES, Plan, RootPlan
from cachetui.core.spack.arch import Arch

# Each status as a character too, so a terminal without colour (NO_COLOR, a screen reader) reads it.
MARKS = {CACHED: "✓", PARTLY: "≈", EXTERNAL: "⌂", BUILD: "✗"}
COLOURS = {CACHED: "green", PARTLY: "yellow", EXTERNAL: "blue", BUILD: "red"}
MEANINGS = {
    CACHED: "a binary Spack can reuse",
    PARTLY: "a binary, its closure not whole",
    EXTERNAL: "external, not buildable",
    BUILD: "no binary can serve it",
}
FACET_TITLE = "Plan"
PLANNING = "planning once the sources are loaded…"


@dataclass(frozen=True)
class PlanAsked:
    """What `--plan ENV [--arch …]` asked, read before the window opens."""

    environment: Environment = field(repr=False)
    arch: Arch
    label: str  # ENV as the user named it
    sources_said: str | None = None  # with no SOURCE named: the environment's mirrors are read (said in the view)


@dataclass(frozen=True)
class PlanBrowsing:
    label: str = ""  # what the user named with --plan
    plan: Plan | None = None  # None until the sources are loaded and planned
    chosen: frozenset[str] = frozenset()  # statuses the list is narrowed to (none: every root)

    @cached_property
    def shown(self) -> tuple[int, ...]:
        """The roots listed (their positions in the plan): those of the chosen statuses, else every one."""
        if self.plan is None:
            return ()
        return tuple(i for i, root in enumerate(self.plan.roots) if not self.chosen or root.status in self.chosen)

    @property
    def counts(self) -> dict[str, int]:
        """The facet's counts: roots of each status (whatever the facet chose)."""
        return dict(self.plan.counts) if self.plan is not None else dict.fromkeys(STATUSES, 0)

    def root(self, row: int) -> RootPlan | None:
        """The root on the list's `row`, if any."""
        if self.plan is None or not 0 <= row < len(self.shown):
            return None
        return self.plan.roots[self.shown[row]]

    def row_of(self, position: int | None, near: int = 0) -> int:
        """The list's row of the plan's root `position`, else the row nearest `near`."""
        if position is not None and position in self.shown:
            return self.shown.index(position)
        return min(max(0, near), max(0, len(self.shown) - 1))

    def summary(self) -> str:
        """The CLI's summary line (`5 roots: 3 cached, …`), or what is being waited for."""
        return self.plan.summary() if self.plan is not None else PLANNING


def planned(state: PlanBrowsing, found: Plan) -> PlanBrowsing:
    """The answer of `plan()` arrived: the statuses chosen stay chosen."""
    return replace(state, plan=found)


def status_toggled(state: PlanBrowsing, status: str) -> PlanBrowsing:
    return replace(state, chosen=state.chosen ^ {status})
