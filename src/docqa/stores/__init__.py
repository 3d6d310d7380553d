"""Database stores: chunks, vectors and metadata kept in a database instead of an index folder.

``docqa.stores.pgvector.PgVectorStore`` keeps a collection in PostgreSQL with pgvector (extra
``docqa[postgres]``). Nothing is imported here: the database driver loads only when a store
module is imported.
"""
