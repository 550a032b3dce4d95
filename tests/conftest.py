"""Shared by both suites: pytest puts this directory on sys.path, so ``tool_calls`` imports.

Property tests are not timed: speed is measured in ``bench/``, where a baseline runs in the
same run, and hypothesis's default 200 ms per example fails a correct test on a loaded
machine (``test_reaching_sheet`` took 417 ms for one example beside other jobs).
"""

from hypothesis import settings

settings.register_profile("actui", deadline=None)
settings.load_profile("actui")
