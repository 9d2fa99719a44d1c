"""typofix.spark on Spark local[2]: a DataFrame column corrected row for row as `typofix correct --file` corrects
the same lines (the same settings, the same user words), over several partitions and several Arrow batches each,
with one Corrector per Python worker. Marked `spark` (run by `make test-spark`, never by `make test`) and skipped
where pyspark or Java is absent."""

# No `from __future__ import annotations`: the pandas UDF below is told its kind by its type hints, as objects.
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# Deselected by `make test` (addopts: not spark), and then nothing here imports pyspark or starts Java.
pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[1]
# Sentences around real misspellings (norvig's test set), capitals, punctuation, a user's word and its typo.
FRAMES = ["I think the {} was there.", "{} is what they said", "The {} and the {} came late, sadly.",
          "Teh quik brown fox saw a {}!", "frobnicate the {} before the rebase", "Did you frobnicat it? {}"]


@pytest.fixture(scope="module")
def lines() -> list[str]:
    typos = [row.split("\t")[0] for row in (ROOT / "data/eval/norvig-testset1.tsv").read_text().splitlines()]
    made = []
    for i in range(300):
        frame = FRAMES[i % len(FRAMES)]
        made.append(frame.format(*(typos[(i + k * 97) % len(typos)] for k in range(frame.count("{}")))))
    made[7] = made[150] = ""  # empty lines pass through
    return made


@pytest.fixture(scope="module")
def user_setup(tmp_path_factory) -> tuple[Path, Path]:
    """A personal list (in its own XDG_CONFIG_HOME) and a --words file: the CLI reads both, and so must Spark."""
    folder = tmp_path_factory.mktemp("spark_words")
    (folder / "config" / "typofix").mkdir(parents=True)
    (folder / "config" / "typofix" / "words.txt").write_text("rebase\n")
    words = folder / "words.txt"
    words.write_text("frobnicate\n")
    return folder / "config", words


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark", reason="needs the spark extra: pip install 'typofix[spark]'")
    pytest.importorskip("pyarrow", reason="needs the spark extra: pip install 'typofix[spark]'")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java (make test-spark installs Debian's JRE)")
    from pyspark.sql import SparkSession

    # The workers run this interpreter (the venv with typofix), not whatever python3 is first on PATH.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    session = (SparkSession.builder.master("local[2]").appName("typofix-test")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "4")
               # Small Arrow batches: each partition reaches its worker in several, all through one Corrector.
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "32")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_column_is_what_typofix_correct_file_writes(spark, lines, user_setup, tmp_path, monkeypatch):
    from typofix import DecodingSettings
    from typofix.spark import correct_column

    config, words = user_setup
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    text = tmp_path / "lines.txt"
    text.write_text("".join(f"{line}\n" for line in lines))
    done = subprocess.run([sys.executable, "-m", "typofix", "correct", "--file", str(text), "--words", str(words),
                           "--min-confidence", "-4"], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert done.returncode == 0, done.stderr
    expected = done.stdout.split("\n")[:-1]
    assert len(expected) == len(lines) and expected != lines  # something was corrected

    rows = [(i, line) for i, line in enumerate(lines)] + [(len(lines), None)]
    df = spark.createDataFrame(rows, "id long, text string").repartition(5)
    assert df.rdd.getNumPartitions() == 5
    fixed = correct_column(df, "text", "fixed", DecodingSettings(min_confidence=-4.0), words=[words])
    got = {row.id: (row.text, row.fixed) for row in fixed.collect()}

    assert fixed.columns == ["id", "text", "fixed"]
    assert got.pop(len(lines)) == (None, None)  # a null stays null
    assert [got[i] for i in range(len(lines))] == list(zip(lines, expected))
    assert "frobnicate the" in " ".join(expected) and "frobnicate it?" in " ".join(expected)  # the user's words
    assert all("rebase" in e for line, e in zip(lines, expected) if "rebase" in line)


def test_one_corrector_per_worker_process_across_batches_and_tasks(spark):
    """Each worker's Corrector is built once and kept: every batch a worker process handles, in every task, sees
    the same object."""
    import pandas as pd
    from pyspark.sql.functions import pandas_udf

    from typofix.apps.spark import spark_recipe, worker_corrector

    recipe = spark_recipe(personal=False)

    @pandas_udf("string")
    def which(batches: Iterator[pd.Series]) -> Iterator[pd.Series]:
        for texts in batches:
            yield pd.Series([f"{os.getpid()}:{id(worker_corrector(recipe))}"] * len(texts))

    df = spark.range(0, 640, numPartitions=8)  # 8 tasks of 80 rows: 3 batches each
    seen = {row.w for row in df.select(which(df.id.cast("string")).alias("w")).collect()}
    by_process: dict[str, set[str]] = {}
    for entry in seen:
        pid, corrector = entry.split(":")
        by_process.setdefault(pid, set()).add(corrector)
    assert by_process and all(len(correctors) == 1 for correctors in by_process.values())


def test_bad_column_is_one_clear_error(spark):
    from typofix.spark import correct_column

    df = spark.createDataFrame([(1, "teh")], "n long, text string")
    with pytest.raises(ValueError, match=r"^no column 'txt' in the DataFrame; its columns are n, text$"):
        correct_column(df, "txt")
    with pytest.raises(ValueError, match=r"^column 'n' holds bigint, not strings"):
        correct_column(df, "n")


def test_a_bad_word_file_is_one_clear_error_before_spark_runs(spark, tmp_path):
    from typofix.files.userwords import WordsError
    from typofix.spark import correct_column

    bad = tmp_path / "words.txt"
    bad.write_text("fine\ntwo words\n")
    df = spark.createDataFrame([("teh",)], "text string")
    with pytest.raises(WordsError, match=r"words.txt:2: expected one word"):
        correct_column(df, "text", words=[bad])
    with pytest.raises(WordsError, match=r"^word list not found: "):
        correct_column(df, "text", words=[tmp_path / "missing.txt"])


def test_a_model_added_to_the_job_is_found_by_its_name(spark, lines, tmp_path):
    """model= names a file the job shipped with addFile (spark-submit --files): each worker finds its copy."""
    from typofix import Corrector, DecodingSettings
    from typofix.files.modelfile import resolve_model
    from typofix.spark import correct_column

    shipped = tmp_path / "shipped-fast.onnxz"
    shipped.write_bytes(resolve_model(preset="fast").read_bytes())
    spark.sparkContext.addFile(str(shipped))
    fast = DecodingSettings.preset("fast")
    df = spark.createDataFrame([(i, line) for i, line in enumerate(lines[:40])], "id long, text string").repartition(2)
    got = dict(correct_column(df, "text", "fixed", fast, model=shipped.name, personal=False)
               .select("id", "fixed").collect())
    assert not Path(shipped.name).exists()  # not where the workers run: they read Spark's copy
    assert [got[i] for i in range(40)] == Corrector.load(shipped, settings=fast).correct_many(lines[:40])
