-- Inlay hints (the shape after each binding). Neovim 0.10+ displays them
-- itself; before that, this module asks the server for them and shows
-- each line's hints as end-of-line virtual text, after a gap that sets
-- them apart from the code and a trailing comment:
--
--   let c = relu(self.conv(x))    c: Tensor[batch, 5, 16, 16]
--
-- in the `TensorfitInlayHint` group (linked to `Comment`; restyle it with
-- `:highlight TensorfitInlayHint ...`).

local M = {}

M.namespace = vim.api.nvim_create_namespace('tensorfit_inlay_hints')

--- What separates a line's code from its hints.
M.gap = '    '

vim.cmd('highlight default link TensorfitInlayHint Comment')

local function label_text(label)
  if type(label) == 'string' then
    return label
  end
  local parts = {}
  for _, part in ipairs(label) do
    table.insert(parts, part.value)
  end
  return table.concat(parts)
end

--- The virtual text of each line: `name: shape` for each hint on it.
function M.lines_of(bufnr, hints)
  local by_line = {}
  for _, hint in ipairs(hints or {}) do
    local row = hint.position.line
    local line = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
    local ok, byte = pcall(vim.str_byteindex, line, hint.position.character, true)
    if not ok then
      byte = #line
    end
    local name = line:sub(1, byte):match('[%w_]+$') or ''
    by_line[row] = by_line[row] or {}
    table.insert(by_line[row], name .. label_text(hint.label))
  end
  return by_line
end

local function show(bufnr, hints)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  vim.api.nvim_buf_clear_namespace(bufnr, M.namespace, 0, -1)
  for row, texts in pairs(M.lines_of(bufnr, hints)) do
    pcall(vim.api.nvim_buf_set_extmark, bufnr, M.namespace, row, 0, {
      virt_text = { { M.gap .. table.concat(texts, '  '), 'TensorfitInlayHint' } },
      virt_text_pos = 'eol',
      -- Below the diagnostics' virtual text, which says what is wrong.
      priority = 50,
    })
  end
end

--- Asks the server for the whole buffer's hints and shows them.
function M.refresh(client, bufnr)
  local last = math.max(vim.api.nvim_buf_line_count(bufnr) - 1, 0)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = 0, character = 0 }, ['end'] = { line = last + 1, character = 0 } },
  }
  client.request('textDocument/inlayHint', params, function(err, result)
    if not err then
      show(bufnr, result)
    end
  end, bufnr)
end

function M.attach(client, bufnr)
  if vim.lsp.inlay_hint and vim.lsp.inlay_hint.enable then
    -- 0.10+: Neovim's own display.
    pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr })
    return
  end
  local group = vim.api.nvim_create_augroup('tensorfit_inlay_hints_' .. bufnr, { clear = true })
  -- The server publishes diagnostics once a check is done: the hints of
  -- the new text are ready then.
  vim.api.nvim_create_autocmd({ 'DiagnosticChanged', 'InsertLeave', 'BufEnter' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      M.refresh(client, bufnr)
    end,
  })
  M.refresh(client, bufnr)
end

return M
