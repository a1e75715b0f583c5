-- Related information of a diagnostic (where each side of a clash came
-- from, the call that makes a claim fail). Neovim shows only a
-- diagnostic's message, so each related place is added to it as a line:
--
--   this call of `Model.forward` fails: m has shape [12, 5, 8, 8] ...
--     model.tensor:10: the requirement that fails, in `Model.forward`
--
-- which `vim.diagnostic.open_float()` and the location list show.

local M = {}

--- The related places of `diagnostic` as lines: `file:line: message`,
--- the file's name only (the whole URI when it is not a file).
function M.lines(diagnostic)
  local lines = {}
  for _, related in ipairs(diagnostic.relatedInformation or {}) do
    local location = related.location or {}
    local uri = location.uri or ''
    local name = uri:match('^file://') and vim.fn.fnamemodify(vim.uri_to_fname(uri), ':t') or uri
    local line = ((location.range or {}).start or {}).line or 0
    table.insert(lines, string.format('  %s:%d: %s', name, line + 1, related.message or ''))
  end
  return lines
end

--- The handler of textDocument/publishDiagnostics: the related places
--- appended to each message, then Neovim's own handler.
function M.publish_diagnostics(err, result, ctx, config)
  if result and result.diagnostics then
    for _, diagnostic in ipairs(result.diagnostics) do
      local lines = M.lines(diagnostic)
      if #lines > 0 then
        diagnostic.message = diagnostic.message .. '\n' .. table.concat(lines, '\n')
      end
    end
  end
  return vim.lsp.diagnostic.on_publish_diagnostics(err, result, ctx, config)
end

return M
