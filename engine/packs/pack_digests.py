"""SHA-256 of the built-in pack files that passed schema validation when this file was
generated (``python tools/regenerate.py``; do not edit): a built-in pack file
whose digest is here skips the JSON Schema at load (see ``lostcities.engine.packs.loader.schema_vouched``)
and is read from its YAML as loaded, kept under the same digest in ``shipped_packs.json``
(``lostcities.engine.packs.loader.shipped_document``), its formulas parsed (under the grammar's
SHA-256: ``lostcities.engine.packs.loader.shipped_trees``)."""
SCHEMA_SHA256 = 'ff4d70c9a53c631876e734ed07bfcae206782313232fb04dc093c9db9048f6e9'
GRAMMAR_SHA256 = '91b6c58508885484fbb3058a4d0cf5565b92a43e89507a7c1d4071c09efc5318'
VOUCHED = frozenset({
    '3d3e067017988ef31db70e0b62709d676a90db66fa113937ec8b7ba4af6f7fd7',
    '5b20ff44582919577f5da5a2aadb2ff76af6f0b42cca1114588623418187a0c6',
    '660e91da79fec6f9d9981e7886f66dde7fc759bd1da451113dd93d642733ac81',
    '7bfee0fde572904b41268606ad8e10935fc13d563136be0f3e3e5e5e28a33efe',
    '85576fb604b01c3c7be1212693757d5fa755de7069225cc2e817a6978c9aa9b6',
    '91c2ccef7127afe35195a64c7351d19d43c50a652b357aa7fe3a87342d373c23',
    'ac3c59301a06eb64ca1be1dd73d33c63b2b79c107265cde5785e62cd042d25fe',
    'b25ffffda3bf14547e46532666409dc3b3d23760d39f8ba03e7f69e13965c853',
    'f46d989bfc20478a44e0a258ba9ea77202a63eb9b378a98c67ba53493c3a324f',
    'f700eb7488222b7f6823548734c9bcca3e4fe47039bb4fa418a119fd38ca5550',
})
