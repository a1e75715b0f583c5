; Scopes, definitions and references.

(function_definition) @local.scope
(block) @local.scope
(struct_definition) @local.scope

(parameter name: (identifier) @local.definition)
(let_statement pattern: (identifier) @local.definition)
(var_statement pattern: (identifier) @local.definition)
(tuple_pattern (identifier) @local.definition)
(index_pattern name: (identifier) @local.definition)
(for_statement variable: (identifier) @local.definition)
(index_binding index: (identifier) @local.definition)

(identifier) @local.reference
