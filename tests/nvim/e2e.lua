-- End-to-end: the Neovim plugin (editors/nvim) starts `tensorfit lsp` and
-- Neovim's own LSP client drives it. Run by crates/tensorfit/tests/nvim.rs:
--   nvim --headless -u NONE -n -c "luafile tests/nvim/e2e.lua"
-- with TENSORFIT_BIN, TENSORFIT_PLUGIN, TENSORFIT_FILE, TENSORFIT_PYFILE and
-- TENSORFIT_OUT set. Writes what it saw to TENSORFIT_OUT, one fact per
-- line, and exits non-zero on failure.

local out = assert(io.open(os.getenv('TENSORFIT_OUT'), 'w'))
local function log(line)
  out:write(line .. '\n')
  out:flush()
end
local function fail(message)
  log('FAIL ' .. message)
  out:close()
  vim.cmd('cquit 1')
end

-- The plugin as a user installs it: on the runtimepath, then setup().
vim.opt.runtimepath:prepend(os.getenv('TENSORFIT_PLUGIN'))
vim.cmd('filetype plugin on')
-- On by default in Neovim; `-u NONE` leaves it off.
vim.cmd('syntax on')
require('tensorfit').setup({ cmd = { os.getenv('TENSORFIT_BIN'), 'lsp' } })

vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('TENSORFIT_FILE')))
local buf = vim.api.nvim_get_current_buf()
log('filetype ' .. vim.bo[buf].filetype .. ', commentstring ' .. vim.bo[buf].commentstring)
-- Highlighting without nvim-treesitter: the plugin's syntax file.
log('syntax ' .. (vim.b[buf].current_syntax or 'none') .. ', `__` is ' ..
  vim.fn.synIDattr(vim.fn.synIDtrans(vim.fn.hlID('tensorHole')), 'name'))
-- The grammar's queries, where nvim-treesitter looks for them.
for _, query in ipairs({ 'highlights', 'locals', 'tags' }) do
  local found = vim.api.nvim_get_runtime_file('queries/tensor/' .. query .. '.scm', false)[1]
  local readable = found and vim.fn.filereadable(found) == 1
  log('query ' .. query .. (readable and ' packaged' or ' MISSING'))
end

local function attached_client()
  for _, client in pairs(vim.lsp.buf_get_clients(buf)) do
    if client.name == 'tensorfit' then
      return client
    end
  end
end
if not vim.wait(10000, function() return attached_client() ~= nil end, 50) then
  return fail('the plugin did not start the server for the buffer')
end
local client = attached_client()

-- 1. Diagnostics arrive by themselves after opening.
if not vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 50) then
  return fail('no diagnostics within a minute')
end
local diagnostics = vim.diagnostic.get(buf)
table.sort(diagnostics, function(a, b) return a.lnum < b.lnum end)
-- Each message carries its related places (lua/tensorfit/related.lua).
for _, d in ipairs(diagnostics) do
  log(string.format('diagnostic %d:%d %s', d.lnum, d.col, (d.message:gsub('\n', ' | '))))
end

-- What the plugin sets up in a Tensor buffer: K, completion and tags.
local k = vim.fn.maparg('K', 'n', false, true)
log('K: ' .. (k.rhs or 'unmapped') .. ', omnifunc ' .. vim.bo[buf].omnifunc .. ', tagfunc ' .. vim.bo[buf].tagfunc)

local function find(text)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local col = line:find(text, 1, true)
    if col then
      return { line = i - 1, character = col - 1 }
    end
  end
end
local document = { uri = vim.uri_from_bufnr(buf) }

local function hover(at)
  local answer = client.request_sync('textDocument/hover', { textDocument = document, position = at }, 60000, buf)
  if not answer or answer.err or not answer.result then
    return nil
  end
  return (answer.result.contents.value:gsub('\n', ' | '))
end

-- 2. Hover on a binding shows its shape; on the hole, its solution.
local binding = find('let c =')
binding.character = binding.character + 4
log('hover c: ' .. (hover(binding) or 'nothing'))

-- `K` on `c` opens the hover in a floating window.
vim.api.nvim_win_set_cursor(0, { binding.line + 1, binding.character })
vim.cmd('normal K')
local function float_text()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
      return table.concat(lines, ' | ')
    end
  end
end
if not vim.wait(30000, function() return float_text() ~= nil end, 50) then
  return fail('K opened no hover window')
end
log('K on c: ' .. float_text())
for _, win in ipairs(vim.api.nvim_list_wins()) do
  if vim.api.nvim_win_get_config(win).relative ~= '' then
    vim.api.nvim_win_close(win, true)
  end
end

-- Completion, as 'omnifunc' asks for it: the prelude's operations, at
-- `re|lu(` (the name being typed).
local typed = find('relu(')
typed.character = typed.character + 2
local completion = client.request_sync('textDocument/completion', {
  textDocument = document,
  position = typed,
}, 60000, buf)
local labels = {}
for _, item in ipairs((completion and completion.result) or {}) do
  labels[item.label] = true
end
log('completion at re|lu offers relu: ' .. tostring(labels.relu == true) .. ', reshape: ' .. tostring(labels.reshape == true))
local hole = find('__')
if not hole then
  return fail('the file has no hole')
end
log('hover __: ' .. (hover(hole) or 'nothing'))

-- 3. Inlay hints, as the plugin shows them on Neovim 0.7 (end-of-line
-- virtual text; later versions display the server's hints themselves).
local namespace = require('tensorfit.inlay_hints').namespace
local function hint_on(row)
  local marks = vim.api.nvim_buf_get_extmarks(buf, namespace, { row, 0 }, { row, -1 }, { details = true })
  return marks[1] and marks[1][4].virt_text[1][1]
end
if vim.lsp.inlay_hint and vim.lsp.inlay_hint.enable then
  log('inlay hint c: (shown by Neovim itself)')
elseif vim.wait(30000, function() return hint_on(binding.line) ~= nil end, 50) then
  log('inlay hint c: ' .. hint_on(binding.line))
else
  return fail('no inlay hint on the line of c')
end

-- 4. The hole's quick fix, applied to the buffer.
local actions = client.request_sync('textDocument/codeAction', {
  textDocument = document,
  range = { start = hole, ['end'] = hole },
  context = { diagnostics = {} },
}, 60000, buf)
if not actions or actions.err or not actions.result or #actions.result == 0 then
  return fail('no code action at the hole')
end
log('action ' .. actions.result[1].title)
vim.lsp.util.apply_workspace_edit(actions.result[1].edit, 'utf-16')
log('line ' .. vim.api.nvim_buf_get_lines(buf, hole.line, hole.line + 1, false)[1])

-- 5. A Python buffer: the same server, beside the Python language server;
-- shape errors and hover, and no keymaps of ours.
vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('TENSORFIT_PYFILE')))
local py = vim.api.nvim_get_current_buf()
if not vim.wait(60000, function() return #vim.diagnostic.get(py) > 0 end, 50) then
  return fail('no diagnostics in the Python buffer within a minute')
end
for _, d in ipairs(vim.diagnostic.get(py)) do
  log(string.format('python diagnostic %d:%d %s', d.lnum, d.col, (d.message:gsub('\n', ' | '))))
end
local py_answer = client.request_sync('textDocument/hover', {
  textDocument = { uri = vim.uri_from_bufnr(py) },
  position = { line = 1, character = 0 },
}, 60000, py)
local py_hover = py_answer and py_answer.result and py_answer.result.contents.value or 'nothing'
log('python hover x: ' .. py_hover:gsub('\n', ' | '))
-- Whatever Neovim's own ftplugin sets there (python3complete#Complete
-- where Python 3 is available), the plugin sets nothing.
log('python omnifunc: ' .. (vim.bo[py].omnifunc == 'v:lua.vim.lsp.omnifunc' and 'set by the plugin' or 'left to its own server'))

vim.lsp.stop_client(client.id)
out:close()
vim.cmd('qall!')
