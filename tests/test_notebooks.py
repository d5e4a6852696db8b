"""The notebooks run top to bottom without error."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from aerodeck import envs
from tests.games import built_in

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes(path, tmp_path):
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for cell in notebook.cells for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors


def test_there_is_a_notebook_per_game():
    quickstarts = {f"{s.id.replace('-', '_')}_quickstart" for s in envs.specs() if built_in(s)}
    assert len(quickstarts) >= 2 and {p.stem for p in NOTEBOOKS} >= quickstarts
