"""`typofix.spark`, the public name of the Spark front door: `correct_column(df, column, output, settings)`.

The front doors live in the apps layer (docs/architecture.md); this name, short to type in a notebook, opens
`typofix.apps.spark`. It needs the `spark` extra: `pip install 'typofix[spark]'`.
"""

from typofix.apps.spark import correct_column, spark_recipe

__all__ = ["correct_column", "spark_recipe"]
