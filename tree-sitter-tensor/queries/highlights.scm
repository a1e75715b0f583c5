; Syntax highlighting for the Tensor language.

(line_comment) @comment
(block_comment) @comment

(string) @string
(escape_sequence) @string.escape
(integer) @number
(float) @number.float
(boolean) @boolean
(hole) @constant.builtin
(unknown_dimension) @constant.builtin
(self) @variable.builtin
(self_parameter) @variable.builtin
(new_axis) @constant.builtin
(ellipsis) @punctuation.special

(primitive_type) @type.builtin
(tensor_type "Tensor" @type.builtin)
(named_type (identifier) @type)
(segment name: (identifier) @type.parameter)

(function_definition name: (identifier) @function)
(extern_function name: (identifier) @function)
(struct_definition name: (identifier) @type)
(parameter name: (identifier) @variable.parameter)
(field_definition name: (identifier) @property)
(const_declaration name: (identifier) @constant)
(argument name: (identifier) @variable.parameter)

(call function: (identifier) @function.call)
(call function: (field_access field: (identifier) @function.method.call))
(field_access field: (identifier) @property)
(reduction operator: (reduction_operator) @keyword.operator)
(index_binding index: (identifier) @variable)

[
  "const" "import" "fn" "extern" "struct" "let" "var" "return"
] @keyword

[ "if" "else" "for" "while" "in" ] @keyword.control
"assert" @keyword.debug
"where" @keyword

[
  "+" "-" "*" "/" "%" "@" "!" "==" "!=" "<" "<=" ">" ">=" "&&" "||"
  "=" "+=" "|->" ".." "->"
] @operator

[ "(" ")" "[" "]" "{" "}" ] @punctuation.bracket
[ "," ":" "." ] @punctuation.delimiter
(empty_statement) @punctuation.delimiter
