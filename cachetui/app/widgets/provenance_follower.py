"""The provenance of the binary the cursor rests on: fetched in a worker, shown in the details when it arrives.

A plain part the browser's body holds: the body owns the details under the cursor. A fetch starts only once
the cursor has rested on a mirror's binary for REST_S (a held key moves it every few
milliseconds: no fetch per row passed over), in an exclusive worker, so keys are never held up.
What arrives is kept per binary for the run (bounded, never in the warm-start cache; the records
themselves are kept by `Provenance`), and shown only if the cursor is on that binary then: a slow
answer never lands under another binary.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from functools import partial

from textual.timer import Timer
from textual.widget import Widget
from textual.worker import get_current_worker

from cachetui.app.widgets.detail_pane import DetailPane, SpecDetail
from cachetui.core.load import Provenance, Signature
from cachetui.core.load.provenance import KEPT
from cachetui.core.spack.words import one_line
from cachetui.present.details.provenance_pane import PENDING, PaneProvenance

REST_S = 0.2  # the cursor has rested: longer than a held key's repeat, shorter than a reader notices

class ProvenanceFollower:
    """Fills the details' provenance section for the spec under the cursor (see the module)."""

    def __init__(self, body: Widget) -> None:
        self._body = body  # holds the details; its timers and workers are the follower's
        self.provenance: Provenance | None = None  # of the corpus shown; set with it
        self._known: OrderedDict[int, PaneProvenance] = OrderedDict()  # spec -> what arrived, oldest first
        self._rest: Timer | None = None

    def provenance_arrived_for(self, provenance: Provenance | None) -> None:
        """A new corpus's provenance: nothing known of it yet."""
        self.provenance = provenance
        self._known.clear()

    def known_provenance(self, spec: int) -> PaneProvenance | None:
        """What has arrived of `spec`'s provenance; None: nothing yet."""
        return self._known.get(spec)

    def known_signature(self, spec: int) -> Signature | None:
        """`spec`'s signature if it has arrived (the copy menu asks whether its signer is trusted)."""
        known = self._known.get(spec)
        return None if known is None else known.signature

    def with_provenance(self, detail: SpecDetail | None) -> SpecDetail | None:
        """`detail` with what is known of its binary's provenance; a fetch is scheduled when more is to come.

        Site documents are listings, not mirrors: they keep no signed record, and have no section.
        """
        if self._rest is not None:
            self._rest.stop()
            self._rest = None
        if detail is None or self.provenance is None or not detail.has_dependency_data:
            return detail
        known = self._known.get(detail.spec.index, PENDING)
        if not known.complete:
            self._rest = self._body.set_timer(REST_S, self._rested, name="provenance rest")
        return replace(detail, provenance=known)

    def _rested(self) -> None:
        shown = self._body.query_one(DetailPane).detail
        if shown is not None and shown.provenance is not None and not shown.provenance.complete \
                and self.provenance is not None:
            self._body.run_worker(partial(self._fetch, self.provenance, shown.spec.index), thread=True,
                                  exclusive=True, group="provenance", name="provenance", exit_on_error=False)

    def _fetch(self, provenance: Provenance, spec: int) -> None:
        """Its record (fetched, verified), shown at once; then what `spack install` downloads with it."""
        try:
            binary = provenance.binary(spec)
            self._body.app.call_from_thread(self._arrived, provenance, spec, PaneProvenance(binary))
            if get_current_worker().is_cancelled:  # the cursor rests elsewhere now: no closure walk for this one
                return
            closure = provenance.closure(spec)  # its own record is kept by now: only the dependencies' are read
        except Exception as exc:  # noqa: BLE001 - whatever failed, the binary is unchecked with the reason, never a crash
            failure = PaneProvenance(failure=one_line(str(exc)) or type(exc).__name__)
            self._body.app.call_from_thread(self._arrived, provenance, spec, failure)
            return
        self._body.app.call_from_thread(self._arrived, provenance, spec, PaneProvenance(binary, closure))

    def _arrived(self, provenance: Provenance, spec: int, shown: PaneProvenance) -> None:
        if provenance is not self.provenance:  # another corpus since: these indexes mean other specs
            return
        if self._known.get(spec, PENDING).complete and not shown.complete:
            return  # a cancelled fetch of the same binary, finishing late: what is known stays
        self._known[spec] = shown
        self._known.move_to_end(spec)
        while len(self._known) > KEPT:
            self._known.popitem(last=False)
        pane = self._body.query_one(DetailPane)
        detail = pane.detail
        if detail is not None and detail.spec.index == spec and detail.provenance is not None:
            pane.detail = replace(detail, provenance=shown)  # the cursor is on it: fill in; else kept for later

