" Highlighting of the Tensor language (tensorfit) without nvim-treesitter:
" the groups tree-sitter-tensor/queries/highlights.scm gives, as Vim
" syntax. With nvim-treesitter and `:TSInstall tensor` the queries take over.
if exists('b:current_syntax')
  finish
endif

syntax keyword tensorKeyword const import fn extern struct let var return
syntax keyword tensorConditional if else
syntax keyword tensorRepeat for while in
syntax keyword tensorStatement assert where
syntax keyword tensorType Tensor Int Bool Float Shape
syntax keyword tensorBoolean true false
syntax keyword tensorConstant None
syntax keyword tensorSelf self
syntax keyword tensorReduction sum prod max min

" `__`, `___`: a hole tensorfit solves; `?`: an unknown dimension.
syntax match tensorHole /\<__\+\>/
syntax match tensorUnknownDim /?/
" `|->`: a shape claim; `..batch`: a rank-polymorphic segment.
syntax match tensorClaim /|->/
syntax match tensorSegment /\.\.\h\w*/

syntax match tensorFunction /\<\h\w*\ze\s*(/
syntax match tensorNumber /\<\d[0-9_]*\>/
syntax match tensorFloat /\<\d[0-9_]*\.\d[0-9_]*\%([eE][-+]\=\d\+\)\=\>/
syntax region tensorString start=/"/ skip=/\\\\\|\\"/ end=/"/ contains=tensorEscape
syntax match tensorEscape /\\./ contained

syntax keyword tensorTodo TODO FIXME XXX contained
syntax match tensorLineComment "//.*$" contains=tensorTodo,@Spell
syntax region tensorBlockComment start="/\*" end="\*/" contains=tensorTodo,@Spell

highlight default link tensorKeyword Keyword
highlight default link tensorConditional Conditional
highlight default link tensorRepeat Repeat
highlight default link tensorStatement Statement
highlight default link tensorType Type
highlight default link tensorBoolean Boolean
highlight default link tensorConstant Constant
highlight default link tensorSelf Identifier
highlight default link tensorReduction Keyword
highlight default link tensorHole Special
highlight default link tensorUnknownDim Special
highlight default link tensorClaim Operator
highlight default link tensorSegment Type
highlight default link tensorFunction Function
highlight default link tensorNumber Number
highlight default link tensorFloat Float
highlight default link tensorString String
highlight default link tensorEscape SpecialChar
highlight default link tensorTodo Todo
highlight default link tensorLineComment Comment
highlight default link tensorBlockComment Comment

let b:current_syntax = 'tensor'
