"""`mrtr tasks resume ID`: follow a kept task again (placeholder until the follower lands)."""

from __future__ import annotations

from mrtr_cli.options import AnsweringOptions, OutputOptions, RecordingOptions, TargetOptions, TaskOptions


def run(task_id: str, options: TargetOptions, answering: AnsweringOptions, output: OutputOptions,
        recording: RecordingOptions, tasks: TaskOptions) -> int:
    raise NotImplementedError
