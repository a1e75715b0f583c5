-- End-to-end: Neovim's own LSP client drives `tensorfit lsp`.
-- Run by crates/tensorfit/tests/nvim.rs:
--   nvim --headless -u NONE -c "luafile tests/nvim/e2e.lua"
-- with TENSORFIT_BIN, TENSORFIT_FILE and TENSORFIT_OUT set. Writes what it
-- saw to TENSORFIT_OUT, one fact per line, and exits non-zero on failure.

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

vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('TENSORFIT_FILE')))
local buf = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = 'tensorfit',
  cmd = { os.getenv('TENSORFIT_BIN'), 'lsp' },
  root_dir = vim.fn.fnamemodify(os.getenv('TENSORFIT_FILE'), ':h'),
})
if not client_id then
  return fail('the server did not start')
end
vim.lsp.buf_attach_client(buf, client_id)
local client = vim.lsp.get_client_by_id(client_id)

-- 1. Diagnostics arrive by themselves after opening.
if not vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 50) then
  return fail('no diagnostics within a minute')
end
for _, d in ipairs(vim.diagnostic.get(buf)) do
  log(string.format('diagnostic %d:%d %s', d.lnum, d.col, d.message))
end

-- Where the hole is.
local hole_line, hole_col
for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
  local col = line:find('__', 1, true)
  if col then
    hole_line, hole_col = i - 1, col - 1
  end
end
if not hole_line then
  return fail('the fixture has no hole')
end
local here = { line = hole_line, character = hole_col }
local document = { uri = vim.uri_from_bufnr(buf) }

-- 2. Hover on the hole shows its solution.
local hover = client.request_sync('textDocument/hover', { textDocument = document, position = here }, 60000, buf)
if not hover or hover.err or not hover.result then
  return fail('no hover')
end
log('hover ' .. hover.result.contents.value:gsub('\n', ' | '))

-- 3. The hole's quick fix, applied to the buffer.
local actions = client.request_sync('textDocument/codeAction', {
  textDocument = document,
  range = { start = here, ['end'] = here },
  context = { diagnostics = {} },
}, 60000, buf)
if not actions or actions.err or not actions.result or #actions.result == 0 then
  return fail('no code action at the hole')
end
log('action ' .. actions.result[1].title)
vim.lsp.util.apply_workspace_edit(actions.result[1].edit, 'utf-16')
log('line ' .. vim.api.nvim_buf_get_lines(buf, hole_line, hole_line + 1, false)[1])

vim.lsp.stop_client(client_id)
out:close()
vim.cmd('qall!')
