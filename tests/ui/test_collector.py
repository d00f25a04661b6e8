"""The garbage collector's schedule: no full collection during a turn, long-lived objects frozen
between turns, everything handed back when the app closes (these tests run many apps in one
process)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from ensemble_tui.ui.gc_schedule import NO_FULL_COLLECTION, CollectorPolicy, start_up_hold
from tests.support import Hang
from tests.ui.conftest import SIZE, settle, shows_pending_input, type_text, wait_until


@pytest.fixture
def collector_state() -> Iterator[tuple[int, int, int]]:
    """Each test starts with nothing frozen and the collector on, as in the app's own process;
    whatever it does, the process's collector is left as it was found (the test session freezes
    what its collection imported, and pauses the collector while a test runs: tests/conftest.py)."""
    threshold = gc.get_threshold()
    frozen_by_session = gc.get_freeze_count() > 0
    paused_by_session = not gc.isenabled()
    gc.unfreeze()
    gc.enable()
    assert threshold[2] != NO_FULL_COLLECTION, "another test left full collections off"
    yield threshold
    gc.unfreeze()
    gc.set_threshold(*threshold)
    if paused_by_session:
        gc.disable()
    if frozen_by_session:
        gc.freeze()  # without a collection first (~0.5 s here): the little garbage frozen with it is harmless


def full_collections_allowed() -> bool:
    return gc.get_threshold()[2] != NO_FULL_COLLECTION


def test_pause_holds_off_full_collections_only_and_resume_restores(collector_state):
    policy = CollectorPolicy()
    policy.pause()
    assert policy.paused and gc.isenabled()
    assert gc.get_threshold()[:2] == collector_state[:2] and not full_collections_allowed()
    assert not policy.settle(threshold=0), "nothing is frozen while a turn runs"
    policy.resume()
    assert not policy.paused and gc.get_threshold() == collector_state


def test_settle_collects_and_freezes_above_the_threshold_and_release_hands_back(collector_state):
    policy = CollectorPolicy()
    assert not policy.settle(threshold=10**9)
    assert gc.get_freeze_count() == 0
    assert policy.settle(threshold=0)
    assert gc.get_freeze_count() > 0
    policy.release()
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == collector_state


def test_a_disabled_policy_leaves_the_collector_alone(collector_state):
    policy = CollectorPolicy(enabled=False)
    policy.pause()
    assert gc.get_threshold() == collector_state
    assert not policy.settle(threshold=0)
    policy.freeze_now()
    assert gc.get_freeze_count() == 0


def test_start_up_runs_without_automatic_collection_until_the_app_freezes(collector_state):
    policy = CollectorPolicy()
    with start_up_hold():
        assert not gc.isenabled()
        policy.freeze_now()  # start-up is over
        assert gc.isenabled() and gc.get_freeze_count() > 0
    policy.release()
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_an_app_closed_during_start_up_turns_automatic_collection_back_on(collector_state):
    with start_up_hold():
        CollectorPolicy().release()  # quit before start-up was over
        assert gc.isenabled()


def test_the_start_up_hold_ends_with_automatic_collection_on_whatever_happens(collector_state):
    with pytest.raises(RuntimeError), start_up_hold():
        CollectorPolicy(enabled=False).freeze_now()  # a policy that leaves the collector alone
        assert not gc.isenabled()
        raise RuntimeError("the app failed to start")
    assert gc.isenabled()


class CountingPolicy(CollectorPolicy):
    """Freezes whenever it may, and counts the times it did (the number of frozen objects is
    no measure: frozen objects freed by reference counting leave the count)."""

    def __init__(self) -> None:
        super().__init__(freeze_after=0)
        self.settled = 0
        self.frozen_at_once = 0

    def settle(self, threshold: int | None = None) -> bool:
        done = super().settle(threshold)
        self.settled += done
        return done

    def freeze_now(self) -> None:
        super().freeze_now()
        self.frozen_at_once += 1


async def test_the_app_collects_between_turns_never_during_one(collector_state, workspace, chatty, make_app):
    chatty["Claude"].scripts["proposer"] = [Hang(), "Claude answer"]
    policy = CountingPolicy()
    app = make_app(collector=policy)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: policy.frozen_at_once == 1)  # start-up is over: frozen at once
        assert gc.get_freeze_count() > 0 and policy.settled == 0
        await type_text(pilot, "Slow question")
        await pilot.press("f2")
        await wait_until(pilot, lambda: app.main.turns.turn is not None and shows_pending_input(app))
        assert not full_collections_allowed()
        await pilot.press("escape")  # cancelled: full collections may run again
        await settle(pilot)
        await wait_until(pilot, full_collections_allowed)
        settled = policy.settled
        await type_text(pilot, "Quick question")
        await pilot.press("f2")
        await settle(pilot)
        await wait_until(pilot, full_collections_allowed)
        assert workspace.session.history[-1].text == "Claude answer"
        await wait_until(pilot, lambda: policy.settled > settled)  # a moment after the turn
    assert gc.get_threshold() == collector_state and gc.get_freeze_count() == 0  # all handed back
