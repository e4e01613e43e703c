"""The Progress a workflow is given (profiler.workflows.progress): `Quiet` takes every call and
shows nothing."""

from profiler.workflows.progress import Quiet


def test_quiet_takes_every_call_and_can_ask_no_one():
    quiet = Quiet()
    quiet.say("a line", markup=False)
    quiet.show(object())
    with quiet.working("busy") as say:
        say("still busy")
    with quiet.bar("items", 3) as bar:
        bar.advance("one")
        bar.describe("two")
        bar.say("a line above")
        bar.per_gpu(None)(object())
    assert quiet.ask("go on?", "it is long") is None
