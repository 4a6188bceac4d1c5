"""SHA-256 of the built-in pack files that passed schema validation when this file was
generated (``python tools/regenerate.py``; do not edit): a built-in pack file
whose digest is here skips the JSON Schema at load (see ``lostcities.engine.packs.loader.schema_vouched``)
and is read from its YAML as loaded, kept under the same digest in ``shipped_packs.json``
(``lostcities.engine.packs.loader.shipped_document``), its formulas parsed (under the grammar's
SHA-256: ``lostcities.engine.packs.loader.shipped_trees``)."""
SCHEMA_SHA256 = '3047883f517a758497fd307f967216d8fdc3b21bcd9d6643c00f19f453875692'
GRAMMAR_SHA256 = '91b6c58508885484fbb3058a4d0cf5565b92a43e89507a7c1d4071c09efc5318'
VOUCHED = frozenset({
    '365caa2418a476499fd0c1e9c240a693eb98cca08ef9c582cd856d153a5912f7',
    '3d3e067017988ef31db70e0b62709d676a90db66fa113937ec8b7ba4af6f7fd7',
    '3df5e77c24e7dbaeeec265f5d8525851abf034462934cc338a604dc894d08785',
    '85576fb604b01c3c7be1212693757d5fa755de7069225cc2e817a6978c9aa9b6',
    '91c2ccef7127afe35195a64c7351d19d43c50a652b357aa7fe3a87342d373c23',
    'bf3cb803fbacc0d13cde6df0d3d06977928dcbb4d90e958cba9b1e91654f06ab',
    'f46d989bfc20478a44e0a258ba9ea77202a63eb9b378a98c67ba53493c3a324f',
    'f700eb7488222b7f6823548734c9bcca3e4fe47039bb4fa418a119fd38ca5550',
})
