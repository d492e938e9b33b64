"""The corpus: reading files and JSONL (``reading``), chunking, tokens, a chunk's prose sentences
(``sentences``), the BM25 and vector indexes, one data store snapshot (``datastore``) and the
persisted store of them all (``store``)."""
