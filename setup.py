"""setuptools' build (pyproject.toml says the rest), with one step more: the manual's pages
(docs/**/*.md, the site's source) are copied into the built package as mrtr_cli/manual/, so that
`mrtr help TOPIC` finds them in an installed wheel (commands/help_topics.py). An editable install
copies nothing: there mrtr reads the checkout's docs/ itself.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

MANUAL = Path(__file__).parent / "docs"


class BuildWithManual(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        target = Path(self.build_lib, "mrtr_cli", "manual")
        shutil.rmtree(target, ignore_errors=True)  # a page removed from docs/ leaves no copy in an older build/
        for page in sorted(MANUAL.rglob("*.md")):
            copy = target / page.relative_to(MANUAL)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(page, copy)


setup(cmdclass={"build_py": BuildWithManual})
