-- tensorfit for Neovim: starts `tensorfit lsp` for Tensor buffers, and for
-- Python buffers beside pyright or basedpyright (shapes only there).
--
--   require('tensorfit').setup {}            -- defaults below
--
-- Works from Neovim 0.7 (`vim.lsp.start_client`) to current releases
-- (`vim.lsp.start`, built-in inlay hints).

local M = {}

local defaults = {
  -- The server command. `tensorfit` must be on $PATH, or give its path.
  cmd = { 'tensorfit', 'lsp' },
  -- A buffer's workspace is the nearest directory above it holding one of
  -- these; else the buffer's own directory.
  root_markers = { '.git' },
  -- Sent to the server as initializationOptions (docs/server.md).
  settings = {
    inlayHints = { enable = true },
    timeoutMs = 2000,
  },
  -- Show inlay hints (the shape after each binding): Neovim's own display
  -- where it has one (0.10+), end-of-line virtual text before that.
  inlay_hints = true,
  -- Check PyTorch files too. In Python buffers the server gives shape
  -- errors, hover, inlay hints and quick fixes; completion, navigation and
  -- `K` stay the Python language server's (pyright, basedpyright).
  python = true,
  -- In Tensor buffers: `K` hovers, and 'omnifunc' (<C-x><C-o>) and
  -- 'tagfunc' (<C-]>) use the server. Set false to map them yourself.
  keymaps = true,
  on_attach = nil,
  capabilities = nil,
}

M.config = vim.deepcopy(defaults)

-- One client per workspace root, for Neovim versions without vim.lsp.start.
local clients_by_root = {}

local function exists(path)
  return (vim.uv or vim.loop).fs_stat(path) ~= nil
end

--- The workspace root of a buffer: the nearest ancestor with a marker.
function M.root_dir(bufnr, markers)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = vim.fn.fnamemodify(name, ':p:h')
  local current = dir
  while true do
    for _, marker in ipairs(markers) do
      if exists(current .. '/' .. marker) then
        return current
      end
    end
    local parent = vim.fn.fnamemodify(current, ':h')
    if parent == current then
      return dir
    end
    current = parent
  end
end

--- What Neovim offers in Tensor buffers through the server: `K`,
--- completion and tags. Python buffers keep their own server's.
local function set_keymaps(bufnr)
  if vim.bo[bufnr].filetype ~= 'tensor' then
    return
  end
  vim.bo[bufnr].omnifunc = 'v:lua.vim.lsp.omnifunc'
  vim.bo[bufnr].tagfunc = 'v:lua.vim.lsp.tagfunc'
  vim.api.nvim_buf_set_keymap(bufnr, 'n', 'K', '<cmd>lua vim.lsp.buf.hover()<CR>', {
    noremap = true,
    silent = true,
    desc = 'tensorfit: the shape under the cursor',
  })
end

local function client_config(root)
  local config = M.config
  return {
    name = 'tensorfit',
    cmd = config.cmd,
    root_dir = root,
    init_options = config.settings,
    settings = { tensorfit = config.settings },
    capabilities = config.capabilities,
    handlers = {
      ['textDocument/publishDiagnostics'] = require('tensorfit.related').publish_diagnostics,
    },
    on_attach = function(client, bufnr)
      if config.inlay_hints then
        require('tensorfit.inlay_hints').attach(client, bufnr)
      end
      if config.keymaps then
        set_keymaps(bufnr)
      end
      if config.on_attach then
        config.on_attach(client, bufnr)
      end
    end,
  }
end

--- The filetypes the server is started for.
function M.filetypes()
  if M.config.python then
    return { 'tensor', 'python' }
  end
  return { 'tensor' }
end

--- Starts (or reuses) the server for a buffer and attaches it. Returns the
--- client id, or nil if the server could not be started.
function M.start(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local root = M.root_dir(bufnr, M.config.root_markers)
  if vim.lsp.start then
    return vim.lsp.start(client_config(root), { bufnr = bufnr })
  end
  local id = clients_by_root[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(client_config(root))
    clients_by_root[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

--- The directory of the tree-sitter grammar next to this plugin, if the
--- plugin is used from a tensorfit checkout.
function M.grammar_dir()
  local source = debug.getinfo(1, 'S').source:sub(2)
  -- .../editors/nvim/lua/tensorfit/init.lua -> the repository root
  local root = vim.fn.fnamemodify(source, ':p:h:h:h:h:h')
  local grammar = root .. '/tree-sitter-tensor'
  if exists(grammar .. '/src/parser.c') then
    return grammar
  end
  return nil
end

-- Tells nvim-treesitter where the grammar is, so that `:TSInstall tensor`
-- builds it; the highlight queries ship in this plugin's queries/tensor.
local function register_treesitter_parser()
  local ok, parsers = pcall(require, 'nvim-treesitter.parsers')
  local grammar = M.grammar_dir()
  if not ok or not grammar then
    return
  end
  local configs = parsers.get_parser_configs and parsers.get_parser_configs() or parsers
  configs.tensor = {
    install_info = { url = grammar, files = { 'src/parser.c' } },
    filetype = 'tensor',
  }
end

function M.setup(options)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), options or {})
  if vim.filetype and vim.filetype.add then
    vim.filetype.add({ extension = { tensor = 'tensor' } })
  end
  local group = vim.api.nvim_create_augroup('tensorfit', { clear = true })
  local filetypes = M.filetypes()
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = filetypes,
    callback = function(event)
      M.start(event.buf)
    end,
  })
  -- Buffers opened before setup.
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(filetypes, vim.bo[bufnr].filetype) then
      M.start(bufnr)
    end
  end
  pcall(register_treesitter_parser)
end

return M
