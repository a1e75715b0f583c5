// External scanner for the Tensor grammar: one zero-width token.
//
// `_same_line` is produced only when the whitespace before the next token
// contains no newline. The grammar requires it between a reduction's `)` and
// its body, so a body is recognised only on the same line.

#include "tree_sitter/parser.h"

enum TokenType {
  SAME_LINE,
  ERROR_SENTINEL,
};

void *tree_sitter_tensor_external_scanner_create(void) { return NULL; }

void tree_sitter_tensor_external_scanner_destroy(void *payload) { (void)payload; }

unsigned tree_sitter_tensor_external_scanner_serialize(void *payload, char *buffer) {
  (void)payload;
  (void)buffer;
  return 0;
}

void tree_sitter_tensor_external_scanner_deserialize(void *payload, const char *buffer,
                                                     unsigned length) {
  (void)payload;
  (void)buffer;
  (void)length;
}

bool tree_sitter_tensor_external_scanner_scan(void *payload, TSLexer *lexer,
                                              const bool *valid_symbols) {
  (void)payload;
  // During error recovery every symbol is valid; never invent a token then.
  if (valid_symbols[ERROR_SENTINEL] || !valid_symbols[SAME_LINE]) {
    return false;
  }
  lexer->mark_end(lexer);
  for (;;) {
    int32_t c = lexer->lookahead;
    if (c == '\n' || c == '\r') {
      return false;
    }
    if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
      lexer->advance(lexer, true);
      continue;
    }
    if (lexer->eof(lexer)) {
      return false;
    }
    lexer->result_symbol = SAME_LINE;
    return true;
  }
}
