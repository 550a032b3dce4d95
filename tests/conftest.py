"""Shared by both suites: pytest puts this directory on sys.path, so ``tool_calls`` imports."""
