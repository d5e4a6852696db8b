"""Each shipped model's card (docs/models/NAME.md) states what the file itself says.

A card follows Mitchell et al.'s model cards (and the Hugging Face template): intended use, out-of-scope
use, then the facts of the file — its size in bytes, its parameter count (every tensor of the zip's
``policy.pth``, the actor and the value network, summed), the library versions SB3 saved in the zip's
``system_info.txt``, the license (the repository's, from pyproject.toml) and how to cite it. The facts
are read here from the shipped zips (``agents/models/*.zip``), so a retrained model whose card was not
updated fails.
"""

from __future__ import annotations

import io
import re
import tomllib
import zipfile
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "agents" / "models"
CARDS = ROOT / "docs" / "models"
ZIPS = sorted(MODELS.glob("*.zip"))


def parameter_count(path: Path) -> int:
    """The number of values in the zip's ``policy.pth`` state dict (weights, biases, learnt scales)."""
    with zipfile.ZipFile(path) as archive:
        state = torch.load(io.BytesIO(archive.read("policy.pth")), map_location="cpu", weights_only=True)
    return sum(tensor.numel() for tensor in state.values())


def saved_with(path: Path) -> dict[str, str]:
    """``system_info.txt`` of an SB3 zip as {library: version} (``- PyTorch: 2.13.0+cpu`` lines)."""
    with zipfile.ZipFile(path) as archive:
        text = archive.read("system_info.txt").decode("utf-8")
    return dict(re.findall(r"^- ([^:]+): (.*?)\s*$", text, flags=re.MULTILINE))


def card_of(path: Path) -> str:
    card = CARDS / f"{path.stem}.md"
    assert card.exists(), f"agents/models/{path.name} has no model card docs/models/{card.name}"
    return card.read_text(encoding="utf-8")


def test_every_shipped_model_has_a_card_and_every_card_a_model():
    assert ZIPS, "no shipped models in agents/models/"
    assert {p.stem for p in ZIPS} == {p.stem for p in CARDS.glob("*.md")}


@pytest.mark.parametrize("path", ZIPS, ids=lambda p: p.stem)
def test_the_card_names_intended_and_out_of_scope_use(path):
    text = card_of(path)
    for heading in ("Intended use", "Out-of-scope use"):
        section = re.search(rf"^## {heading}\n(.*?)(?=^## |\Z)", text, flags=re.MULTILINE | re.DOTALL)
        assert section and re.search(r"^- \S", section.group(1), flags=re.MULTILINE), \
            f"docs/models/{path.stem}.md has no '## {heading}' section with at least one item"


@pytest.mark.parametrize("path", ZIPS, ids=lambda p: p.stem)
def test_the_card_states_the_files_parameter_count_and_size(path):
    text, count, size = card_of(path), parameter_count(path), path.stat().st_size
    assert re.search(rf"\| parameters \| {count:,} ", text), \
        f"docs/models/{path.stem}.md does not give the parameter count {count:,} (policy.pth of {path.name})"
    assert f"{size:,} bytes" in text, f"docs/models/{path.stem}.md does not give the file size {size:,} bytes"


@pytest.mark.parametrize("path", ZIPS, ids=lambda p: p.stem)
def test_the_card_states_the_library_versions_the_zip_was_saved_with(path):
    text, versions = card_of(path), saved_with(path)
    for library in ("Stable-Baselines3", "PyTorch", "Gymnasium"):
        assert f"{library} {versions[library]}" in text, (
            f"docs/models/{path.stem}.md does not say {library} {versions[library]} "
            f"(the version in {path.name}'s system_info.txt)")


@pytest.mark.parametrize("path", ZIPS, ids=lambda p: p.stem)
def test_the_card_states_the_license_and_how_to_cite(path):
    license_ = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["license"]
    name = license_["text"] if isinstance(license_, dict) else license_
    text = card_of(path)
    assert re.search(rf"^\| license \| {re.escape(name)}\b", text, flags=re.MULTILINE), \
        f"docs/models/{path.stem}.md does not give the repository's license, {name}"
    assert re.search(r"^\| citation \| \S", text, flags=re.MULTILINE), f"docs/models/{path.stem}.md says nothing on citing"


def test_the_parameter_count_reads_every_tensor(tmp_path):
    """The count is the sum of the tensors' sizes, scalars included (a planted state dict)."""
    raw = io.BytesIO()
    torch.save({"w": torch.zeros(3, 4), "b": torch.zeros(3), "scale": torch.tensor(1.0)}, raw)
    planted = tmp_path / "planted.zip"
    with zipfile.ZipFile(planted, "w") as archive:
        archive.writestr("policy.pth", raw.getvalue())
    assert parameter_count(planted) == 16
