"""The coalescing scheduler: bounded flushes and comm messages whatever the event rate."""

from __future__ import annotations

from nb_agent.jupyter.view.throttle import CommBudget, UpdateScheduler


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _scheduler(clock, rendered, *, cost=1, flushes=25.0, messages=25.0):
    def render(key):
        rendered.append((clock.now, key))
        return cost

    return UpdateScheduler(render, max_flushes_per_s=flushes, budget=CommBudget(rate=messages, clock=clock), clock=clock)


def test_a_flood_of_changes_is_coalesced_to_the_flush_rate():
    clock, rendered = Clock(), []
    scheduler = _scheduler(clock, rendered)
    # 10,000 deltas over 2 s (5,000 a second), a tick every 10 ms
    for step in range(10_000):
        clock.now = step * 0.0002
        scheduler.mark("text")
        if step % 50 == 0:
            scheduler.tick()
    per_second = [sum(1 for t, _ in rendered if s <= t < s + 1) for s in (0, 1)]
    assert all(20 <= n <= 26 for n in per_second), per_second


def test_message_budget_bounds_traffic_with_many_keys():
    clock, rendered = Clock(), []
    scheduler = _scheduler(clock, rendered, flushes=1000.0)
    for step in range(1000):  # 10 s, ticks every 10 ms, 8 keys always dirty
        clock.now = step * 0.01
        for key in range(8):
            scheduler.mark(key)
        scheduler.tick()
    assert len(rendered) <= 25 * 10 + 4 + 1
    for second in range(10):
        assert sum(1 for t, _ in rendered if second <= t < second + 1) <= 30
    # fairness: every key got rendered
    assert {key for _, key in rendered} == set(range(8))


def test_costly_renders_go_into_debt_and_slow_down():
    clock, rendered = Clock(), []
    scheduler = _scheduler(clock, rendered, cost=10)
    for step in range(300):  # 3 s
        clock.now = step * 0.01
        scheduler.mark("card")
        scheduler.tick()
    assert scheduler.budget.spent <= 25 * 3 + 4 + 10


def test_per_key_minimum_interval():
    clock, rendered = Clock(), []
    scheduler = _scheduler(clock, rendered)
    for step in range(200):  # 2 s
        clock.now = step * 0.01
        scheduler.mark("status", min_interval=0.5)
        scheduler.tick()
    assert 4 <= len(rendered) <= 5


def test_nothing_dirty_nothing_rendered_and_force_flushes():
    clock, rendered = Clock(), []
    scheduler = _scheduler(clock, rendered)
    assert scheduler.tick() == 0
    scheduler.mark("a")
    scheduler.tick()
    scheduler.mark("a")
    assert scheduler.tick() == 0  # too soon after the last flush
    assert scheduler.tick(force=True) == 1
    assert not scheduler.pending
