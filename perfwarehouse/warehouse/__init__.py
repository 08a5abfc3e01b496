"""The warehouse directory: catalog, Parquet layout, locking, SQL files."""
