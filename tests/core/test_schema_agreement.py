"""One source of truth for file structure: the reader validates every instance
file against the problem's JSON Schema (closed at the top level, integers
within 2^53) before its semantic checks, and ``hpcsched schema`` prints that
same schema. A property test mutates the shipped instances and requires that
whatever the schema refuses, the reader refuses, with one clear error."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from clirunner import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from hpcsched.cli import app
from hpcsched.core.errors import HpcschedError, InvalidInstanceError
from hpcsched.core.io import (
    _validators,
    check_against_schema,
    instance_from_document,
    instance_schema,
    load_json,
    read_instance,
)
from hpcsched.core.registry import PROBLEM_PACKAGES, get_problem

from .instance_mutations import MUTATIONS

INSTANCES = Path(__file__).resolve().parents[2] / "instances"
#: Mutating and re-reading a large file costs seconds per example: the property test takes the smaller files.
SMALL = 60_000


def shipped(problem: str) -> list[Path]:
    folder = INSTANCES / problem
    # solved.json and solved-<variant>.json hold known optima, not instances
    return sorted(p for p in folder.glob("*.json") if not p.name.startswith("solved")) if folder.is_dir() else []


PROBLEMS = [name for name in PROBLEM_PACKAGES if shipped(name)]


@pytest.mark.parametrize("problem", PROBLEMS)
def test_every_shipped_instance_passes_its_schema(problem):
    entry = get_problem(problem)
    for path in shipped(problem):
        document = load_json(path)
        check_against_schema(document, entry, str(path))
        read_instance(path)


@pytest.mark.parametrize("problem", PROBLEMS)
def test_schema_command_prints_the_schema_the_reader_uses(problem):
    result = CliRunner().invoke(app, ["schema", problem])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == json.loads(json.dumps(instance_schema(get_problem(problem))))


def _transfers_document() -> dict:
    return load_json(shipped("transfers")[0])


def test_top_level_is_closed():
    document = {**_transfers_document(), "nmae": "typo"}
    with pytest.raises(InvalidInstanceError) as error:
        instance_from_document(document, "t.json")
    assert error.value.field == "nmae" and str(error.value).startswith("t.json: nmae: unknown key")


@pytest.mark.parametrize(
    ("value", "reason"),
    [(2**60, "<= 9007199254740992"), ("12", "must be an integer"), (True, "must be an integer"), (0, ">= 1")],
)
def test_error_names_the_file_and_the_json_path(value, reason):
    document = _transfers_document()
    document["data"]["tasks"][3]["memory"] = value
    with pytest.raises(InvalidInstanceError) as error:
        instance_from_document(document, "t.json")
    assert str(error.value).startswith("t.json: data.tasks[3].memory: ")
    assert reason in str(error.value)


def _documents() -> list[tuple[str, dict]]:
    found = []
    for problem in PROBLEMS:
        for path in shipped(problem):
            if path.stat().st_size <= SMALL:
                found.append((str(path), load_json(path)))
    return found


DOCUMENTS = _documents()


@settings(max_examples=300)
@given(
    which=st.integers(0, len(DOCUMENTS) - 1),
    mutation=st.sampled_from(sorted(MUTATIONS)),
    seed=st.integers(0, 2**32 - 1),
)
def test_what_the_schema_refuses_the_reader_refuses(which, mutation, seed):
    file, document = DOCUMENTS[which]
    rng = random.Random(seed)
    mutated = MUTATIONS[mutation](document, lambda options: rng.choice(list(options)))
    if mutated is None:
        return
    problem = get_problem(document["problem"])
    fast, full = _validators(problem)
    refused_fully = any(True for _ in full.iter_errors(mutated))
    if fast is not None:  # the compiled fast path and jsonschema must agree (a keyword one ignores would split them)
        try:
            fast(mutated)
            refused_fast = False
        except Exception:
            refused_fast = True
        assert refused_fast == refused_fully, (file, mutation)
    try:
        instance_from_document(mutated, file)
        read = True
    except HpcschedError as error:
        read = False
        assert "\n" not in str(error) and str(error).startswith(file)
    if refused_fully:
        assert not read, (file, mutation)
