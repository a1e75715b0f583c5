/**
 * Tree-sitter grammar for the Tensor language (see docs/language.md).
 *
 * Design notes for the next engineer:
 * - Newlines are ordinary whitespace. Statements end where the next one
 *   cannot continue the current expression. `;` is an empty statement, so
 *   it can separate statements explicitly (needed only before a statement
 *   that starts with `(`, `[` or `-`).
 * - Validity beyond the shape of the text (what may be assigned to, what a
 *   reduction may bind) is checked by the lowering in `crates/`, which gives
 *   better messages than a parse error could.
 * - `sum`, `prod`, `max`, `min` and `where` are keywords only where a
 *   reduction or a where clause can start; everywhere else they are ordinary
 *   identifiers (prelude functions).
 */

const PREC = {
  shape_assert: 1,
  or: 2,
  and: 3,
  compare: 4,
  additive: 5,
  multiplicative: 6,
  unary: 7,
  postfix: 8,
};

const commaSep1 = (rule) => seq(rule, repeat(seq(',', rule)), optional(','));
const commaSep = (rule) => optional(commaSep1(rule));

module.exports = grammar({
  name: 'tensor',

  word: ($) => $.identifier,

  // Hard keywords are never identifiers, even where a keyword is not
  // expected (otherwise `max(a, b)` could swallow a following `let`).
  reserved: {
    global: (_) => [
      'const', 'import', 'fn', 'extern', 'struct', 'let', 'var', 'assert', 'if',
      'else', 'for', 'while', 'return', 'in', 'true', 'false', 'self', 'Tensor',
      'Int', 'Bool', 'Float', 'Shape',
    ],
  },

  // `_same_line` is a zero-width token that exists only when no newline
  // separates it from the next token (see src/scanner.c). The sentinel is
  // never used by a rule: when the scanner sees it valid, tree-sitter is
  // recovering from an error.
  externals: ($) => [$._same_line, $._error_sentinel],

  extras: ($) => [/\s/, $.line_comment, $.block_comment],

  conflicts: ($) => [
    // `sum(k) e` is a reduction, `sum(k)` alone a call: decided by what follows.
    [$._reserved_identifier, $.reduction_operator],
  ],

  supertypes: ($) => [$._item, $._statement, $._expression, $._type],

  rules: {
    source_file: ($) => repeat(choice($._item, $._statement)),

    // ----------------------------------------------------------------- items

    _item: ($) =>
      choice(
        $.const_declaration,
        $.import_declaration,
        $.function_definition,
        $.extern_function,
        $.struct_definition,
      ),

    const_declaration: ($) =>
      seq(
        'const',
        field('name', $.identifier),
        optional(seq(':', field('type', $._type))),
        '=',
        field('value', $._expression),
      ),

    import_declaration: ($) => seq('import', field('path', $.string)),

    function_definition: ($) =>
      seq(
        'fn',
        field('name', $.identifier),
        field('parameters', $.parameters),
        optional(seq('->', field('return_type', $._type))),
        optional(field('where', $.where_clause)),
        field('body', $.block),
      ),

    // Greedy: a following `where` is this contract's clause, not a call.
    extern_function: ($) =>
      prec.right(seq(
        'extern',
        'fn',
        field('name', $.identifier),
        field('parameters', $.parameters),
        optional(seq('->', field('return_type', $._type))),
        optional(field('where', $.where_clause)),
      )),

    parameters: ($) => seq('(', commaSep(choice($.self_parameter, $.parameter)), ')'),

    self_parameter: (_) => 'self',

    parameter: ($) =>
      seq(
        optional(field('variadic', '..')),
        field('name', $.identifier),
        optional(seq(':', field('type', $._type))),
        optional(seq('=', field('default', $._expression))),
      ),

    // No trailing comma: it would make the end of a contract ambiguous.
    where_clause: ($) =>
      prec.right(seq('where', $._expression, repeat(seq(',', $._expression)))),

    struct_definition: ($) =>
      seq(
        'struct',
        field('name', $.identifier),
        optional(field('parameters', $.parameters)),
        field('body', $.struct_body),
      ),

    struct_body: ($) => seq('{', repeat(choice($.field_definition, $.function_definition, $.empty_statement)), '}'),

    field_definition: ($) =>
      seq(
        field('name', $.identifier),
        optional(seq(':', field('type', $._type))),
        '=',
        field('value', $._expression),
      ),

    // ----------------------------------------------------------------- types

    _type: ($) => choice($.tensor_type, $.primitive_type, $.tuple_type, $.named_type),

    primitive_type: (_) => choice('Int', 'Bool', 'Float', 'Shape'),

    named_type: ($) => $.identifier,

    tuple_type: ($) => seq('(', commaSep($._type), ')'),

    tensor_type: ($) => prec.right(seq('Tensor', optional(field('dimensions', $.dimension_list)))),

    dimension_list: ($) => seq('[', commaSep($._dimension), ']'),

    _dimension: ($) => choice($.unknown_dimension, $.segment, $._expression),

    unknown_dimension: (_) => '?',

    // `..batch` or `..broadcast(A, B)`: zero or more dimensions.
    segment: ($) =>
      seq(
        '..',
        field('name', $.identifier),
        optional(seq('(', commaSep($.identifier), ')')),
      ),

    // ------------------------------------------------------------ statements

    _statement: ($) =>
      choice(
        $.let_statement,
        $.var_statement,
        $.assignment,
        $.assert_statement,
        $.if_statement,
        $.for_statement,
        $.while_statement,
        $.return_statement,
        $.expression_statement,
        $.empty_statement,
      ),

    empty_statement: (_) => ';',

    block: ($) => seq('{', repeat($._statement), '}'),

    let_statement: ($) =>
      seq(
        'let',
        field('pattern', $._pattern),
        optional(seq(':', field('type', $._type))),
        '=',
        field('value', $._expression),
      ),

    var_statement: ($) =>
      seq(
        'var',
        field('pattern', $._pattern),
        optional(seq(':', field('type', $._type))),
        optional(seq('=', field('value', $._expression))),
      ),

    _pattern: ($) => choice($.identifier, $.tuple_pattern, $.index_pattern),

    tuple_pattern: ($) => seq('(', commaSep($._pattern), ')'),

    // The left-hand side of an index-notation definition: `A[i, j]`.
    // A following `[` always continues the pattern (never starts a list).
    index_pattern: ($) =>
      prec(1, seq(field('name', $.identifier), '[', commaSep($.identifier), ']')),

    // The target is any expression so that `a + b = 1` parses; the lowering
    // says what may be assigned to.
    assignment: ($) =>
      seq(
        field('target', $._expression),
        field('operator', choice('=', '+=')),
        field('value', $._expression),
      ),

    assert_statement: ($) =>
      seq(
        'assert',
        field('condition', $._expression),
        optional(seq(',', field('message', $._expression))),
      ),

    if_statement: ($) =>
      seq(
        'if',
        field('condition', $._expression),
        field('consequence', $.block),
        optional(seq('else', field('alternative', choice($.if_statement, $.block)))),
      ),

    for_statement: ($) =>
      seq(
        'for',
        field('variable', $.identifier),
        'in',
        field('range', $.range),
        field('body', $.block),
      ),

    range: ($) => seq(field('start', $._expression), '..', field('end', $._expression)),

    while_statement: ($) =>
      seq('while', field('condition', $._expression), field('body', $.block)),

    return_statement: ($) =>
      prec.right(seq('return', optional(field('value', $._expression)))),

    expression_statement: ($) => seq($._expression),

    // ----------------------------------------------------------- expressions

    // Comparisons and logical operators sit above the arithmetic operands so
    // that `a <= b < c` is one flat, chained comparison.
    _expression: ($) =>
      choice($._operand, $.comparison, $.logical_expression, $.shape_assertion),

    _operand: ($) =>
      choice(
        $.identifier,
        alias($._reserved_identifier, $.identifier),
        $.self,
        $.integer,
        $.float,
        $.boolean,
        $.string,
        $.hole,
        $.list,
        $.tuple,
        $.parenthesized_expression,
        $.call,
        $.subscript,
        $.field_access,
        $.unary_expression,
        $.binary_expression,
        $.reduction,
      ),

    // Words that start a reduction or a where clause but are also names of
    // prelude functions: `sum(x, dim: 1)`, `where(c, a, b)`.
    _reserved_identifier: (_) => choice('sum', 'prod', 'max', 'min', 'where'),

    self: (_) => 'self',

    integer: (_) => /[0-9][0-9_]*/,

    float: (_) =>
      token(
        choice(
          /[0-9][0-9_]*\.[0-9][0-9_]*([eE][+-]?[0-9]+)?/,
          /[0-9][0-9_]*[eE][+-]?[0-9]+/,
        ),
      ),

    boolean: (_) => choice('true', 'false'),

    string: ($) =>
      seq('"', repeat(choice($.string_content, $.escape_sequence)), token.immediate('"')),

    string_content: (_) => token.immediate(prec(1, /[^"\\\n]+/)),

    escape_sequence: (_) => token.immediate(/\\./),

    // `__`, `___`, ...: a shape hole. Longer names such as `__x` stay identifiers.
    hole: (_) => token(prec(1, /__+/)),

    // Unicode letters are allowed, as in Python: `α`, `x̂`.
    identifier: (_) => /[\p{XID_Start}_][\p{XID_Continue}]*/,

    list: ($) => seq('[', commaSep($._list_element), ']'),

    // `?` may appear in the shape pattern of `|->`.
    _list_element: ($) => choice($._expression, $.unknown_dimension),

    tuple: ($) =>
      choice(
        seq('(', ')'),
        seq('(', $._expression, ',', ')'),
        seq('(', $._expression, repeat1(seq(',', $._expression)), optional(','), ')'),
      ),

    parenthesized_expression: ($) => seq('(', $._expression, ')'),

    call: ($) =>
      prec(PREC.postfix, seq(field('function', $._operand), field('arguments', $.arguments))),

    arguments: ($) => seq('(', commaSep($.argument), ')'),

    argument: ($) =>
      choice(
        field('value', $._expression),
        seq(field('name', $.identifier), ':', field('value', $._expression)),
        // PyTorch's `kernel_size=3`: parsed as the named argument it is
        // meant to be, so that the error says how to write it (`:`) and
        // offers the fix, instead of a syntax error and an undeclared name.
        seq(field('name', $.identifier), field('python_equals', '='), field('value', $._expression)),
      ),

    subscript: ($) =>
      prec(
        PREC.postfix,
        seq(field('value', $._operand), '[', commaSep(field('index', $._index)), ']'),
      ),

    // What may stand between the brackets of a subscript: PyTorch's basic
    // indexing (LANGUAGE.md §4). `None` is a new axis only here; elsewhere
    // it is an ordinary (undeclared) name.
    _index: ($) => choice($._expression, $.slice, $.ellipsis, $.new_axis),

    // `start:stop:step`, each part optional: `:`, `1:`, `:t`, `::2`.
    slice: ($) =>
      seq(
        optional(field('start', $._expression)),
        ':',
        optional(field('stop', $._expression)),
        optional(seq(':', optional(field('step', $._expression)))),
      ),

    ellipsis: (_) => '...',

    new_axis: (_) => 'None',

    field_access: ($) =>
      prec(
        PREC.postfix,
        seq(
          field('value', $._operand),
          '.',
          field('field', choice($.identifier, alias($._reserved_identifier, $.identifier), $.integer)),
        ),
      ),

    unary_expression: ($) =>
      prec(
        PREC.unary,
        seq(field('operator', choice('-', '!')), field('operand', $._operand)),
      ),

    binary_expression: ($) =>
      choice(
        ...[
          ['+', PREC.additive],
          ['-', PREC.additive],
          ['*', PREC.multiplicative],
          ['/', PREC.multiplicative],
          ['%', PREC.multiplicative],
          ['@', PREC.multiplicative],
        ].map(([operator, precedence]) =>
          prec.left(
            precedence,
            seq(
              field('left', $._operand),
              field('operator', operator),
              field('right', $._operand),
            ),
          ),
        ),
      ),

    logical_expression: ($) =>
      choice(
        ...[
          ['||', PREC.or],
          ['&&', PREC.and],
        ].map(([operator, precedence]) =>
          prec.left(
            precedence,
            seq(
              field('left', $._expression),
              field('operator', operator),
              field('right', $._expression),
            ),
          ),
        ),
      ),

    // `a <= b < c` is one chained comparison, as in Python.
    comparison: ($) =>
      prec.left(
        PREC.compare,
        seq(
          $._operand,
          repeat1(
            seq(
              field('operator', choice('==', '!=', '<', '<=', '>', '>=')),
              $._operand,
            ),
          ),
        ),
      ),

    shape_assertion: ($) =>
      prec.left(
        PREC.shape_assert,
        seq(field('value', $._expression), '|->', field('shape', $.list)),
      ),

    // `sum(k in 0..h) A[k, y] * B[k, x]` or `max(k) E[i, k, j]`. The body
    // starts on the line of the `)`, so that `max(a, b)` followed by a
    // statement on the next line stays a call.
    reduction: ($) =>
      prec.dynamic(
        1,
        prec.right(
          PREC.shape_assert,
          seq(
            field('operator', $.reduction_operator),
            '(',
            commaSep1($.index_binding),
            ')',
            $._same_line,
            field('body', $._expression),
          ),
        ),
      ),

    reduction_operator: (_) => choice('sum', 'prod', 'max', 'min'),

    index_binding: ($) =>
      seq(field('index', $.identifier), optional(seq('in', field('range', $.range)))),

    line_comment: (_) => token(seq('//', /[^\n]*/)),

    block_comment: (_) => token(seq('/*', /[^*]*\*+([^/*][^*]*\*+)*/, '/')),
  },
});
