; Definitions and references for code navigation.

(function_definition name: (identifier) @name) @definition.function
(extern_function name: (identifier) @name) @definition.function
(struct_definition name: (identifier) @name) @definition.class
(const_declaration name: (identifier) @name) @definition.constant
(call function: (identifier) @name) @reference.call
(call function: (field_access field: (identifier) @name)) @reference.call
