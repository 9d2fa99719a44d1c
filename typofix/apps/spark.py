"""typofix on Apache Spark: correct a string column of a DataFrame, one Corrector per Python worker.

`correct_column(df, "text", "fixed")` adds (or replaces) a column whose values are what `typofix correct --file`
writes for the same lines: the same `DecodingSettings`, the same user words (the personal list and word files,
read here, on the driver, and shipped to the executors as words, so an executor needs no copy of the files).

The column is computed by an Arrow-batched pandas UDF of the iterator kind: Spark hands each Python worker its
rows in Arrow batches, and the worker builds its Corrector the first time it needs one and keeps it in this
module for as long as it lives. Spark reuses its Python workers across tasks (spark.python.worker.reuse, on by
default), so a worker loads the model and the word lists once, not once per batch or per partition. Nulls and
empty strings are passed through as they are, without calling the corrector.

The executors need typofix installed (its model and word lists are package data): `pip install typofix` on each,
or the package shipped with the job; see README.md, "Correct a corpus on Spark".
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from typofix.engine.jobs import CorrectorRecipe
from typofix.engine.settings import DecodingSettings
from typofix.files.userwords import user_words

try:  # the `spark` extra; the rest of typofix never imports this module, so only its users need it
    import pandas as pd
    from pyspark.sql import DataFrame
    from pyspark.sql.functions import pandas_udf
    from pyspark.sql.types import StringType
except ImportError as err:  # pragma: no cover - depends on what is installed
    raise ImportError(f"typofix.spark needs pyspark with pandas and pyarrow ({err.name} is missing): "
                      "pip install 'typofix[spark]'") from None

__all__ = ["correct_column", "spark_recipe"]

# This worker's correctors, by what built them: kept for the worker's life, so that every batch and every task
# Spark gives the worker after the first reuses the loaded model and word lists.
_loaded: dict[CorrectorRecipe, object] = {}


def spark_recipe(settings: DecodingSettings | None = None, words: Iterable[str | os.PathLike] = (),
                 model: str | os.PathLike | None = None, personal: bool = True) -> CorrectorRecipe:
    """What every worker builds its Corrector from, read on the driver: `settings` (None: the default preset),
    the user words as the CLI reads them (the personal list unless `personal` is False, then the word files
    `words`, as `--words FILE` each; a bad file raises `typofix.files.userwords.WordsError`, one line), and
    `model` (None: the bundled model, package data on every executor; a path must be readable on every
    executor, or added with `SparkContext.addFile` and given by its file name)."""
    if settings is not None and not isinstance(settings, DecodingSettings):
        raise TypeError(f"settings must be a typofix DecodingSettings, got {type(settings).__name__}")
    if isinstance(words, (str, os.PathLike)):  # one file, not the characters of its name
        words = [words]
    return CorrectorRecipe(None if model is None else str(model), settings or DecodingSettings(),
                           tuple(user_words(words, personal=personal)))


def correct_column(df: DataFrame, column: str, output: str | None = None, settings: DecodingSettings | None = None,
                   *, words: Iterable[str | os.PathLike] = (), model: str | os.PathLike | None = None,
                   personal: bool = True) -> DataFrame:
    """`df` with the string column `column` corrected into `output` (None: `column` itself, replaced), every
    other column as it was. `settings`, `words`, `model` and `personal` are those of `spark_recipe`. The
    values are `typofix correct --file`'s for the same lines; nulls and empty strings stay as they are.
    Lazy, as Spark is: nothing is corrected until the DataFrame is used."""
    if column not in df.columns:
        raise ValueError(f"no column {column!r} in the DataFrame; its columns are {', '.join(df.columns) or 'none'}")
    kind = df.schema[column].dataType
    if not isinstance(kind, StringType):
        raise ValueError(f"column {column!r} holds {kind.simpleString()}, not strings: nothing to correct")
    return df.withColumn(output or column, corrected(spark_recipe(settings, words, model, personal))(df[column]))


def corrected(recipe: CorrectorRecipe):
    """The pandas UDF that corrects a string column with the Corrector `recipe` describes."""

    def correct_batches(batches: Iterator[pd.Series]) -> Iterator[pd.Series]:
        corrector = worker_corrector(recipe)
        for texts in batches:
            yield correct_series(corrector, texts)

    return pandas_udf(correct_batches, StringType())


def worker_corrector(recipe: CorrectorRecipe):
    """This worker's Corrector for `recipe`, built on first use and then kept."""
    if recipe not in _loaded:
        os.environ.setdefault("OMP_NUM_THREADS", "1")  # Spark runs a Python worker per core: one thread each
        _loaded[recipe] = on_this_executor(recipe).load()
    return _loaded[recipe]


def on_this_executor(recipe: CorrectorRecipe) -> CorrectorRecipe:
    """`recipe` with its model path as this executor sees it: a path given by name only that is not here is
    looked up among the files the job added with `SparkContext.addFile` (`spark-submit --files`)."""
    if recipe.model is None or Path(recipe.model).exists():
        return recipe
    from pyspark import SparkFiles

    shipped = Path(SparkFiles.get(Path(recipe.model).name))
    return CorrectorRecipe(shipped, recipe.settings, recipe.user_words) if shipped.is_file() else recipe


def correct_series(corrector, texts: pd.Series) -> pd.Series:
    """A batch of values corrected in one `correct_each` (their words decoded in shared batches); a null or an
    empty string is not text to correct and comes back as it was."""
    values = texts.tolist()
    todo = [i for i, text in enumerate(values) if isinstance(text, str) and text]
    for i, fixed in zip(todo, corrector.correct_each([values[i] for i in todo])):  # each row its own document
        values[i] = fixed
    return pd.Series(values, index=texts.index, dtype=object)
