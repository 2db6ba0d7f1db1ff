"""Sync-or-async stepping: one generator-based routine serves a native caller (plain values) and the browser's
(awaitables from JS), without being written twice.

The routine is a generator that yields what it asks for (a value, or an awaitable of one) and receives the answer.
`drive` stays synchronous while every answer is a plain value, so native callers get the result itself; at the
first awaitable it returns a coroutine that finishes the job. Calls stay sequential either way. An awaitable's
exception is thrown into the generator at its yield, where it can catch it as it would a plain call's."""
from __future__ import annotations

import inspect


def drive(steps, boxed: bool = False):
    """Run `steps` to its return value (or a coroutine of it). boxed=True sends each answer in a one-item list the
    generator pops, so that nothing here keeps a large answer (a page's pixels) alive after the generator let it
    go."""
    try:
        pending = next(steps)
        while not inspect.isawaitable(pending):
            pending = steps.send(_answer(pending, boxed))
    except StopIteration as done:
        return done.value
    return _finish(steps, pending, boxed)


def _answer(value, boxed: bool):
    return [value] if boxed else value


async def _finish(steps, pending, boxed: bool):
    try:
        while True:
            if inspect.isawaitable(pending):
                try:
                    value = await pending
                except Exception as exc:
                    pending = steps.throw(exc)
                    continue
            else:
                value = pending
            pending = None
            pending = steps.send(_answer(value, boxed))
            value = None
    except StopIteration as done:
        return done.value
