-- lsp.lua: the Neovim client test: Neovim's built-in LSP client (0.7: vim.lsp.start_client and
-- vim.lsp.buf_attach_client) attached to `typofix lsp` over one file.
-- Run: TYPOFIX=/path/to/typofix TYPOFIX_FILE=note.md TYPOFIX_OUT=out.txt nvim --headless -u NONE -c "luafile lsp.lua"
-- Writes to TYPOFIX_OUT one line per diagnostic, "DIAGNOSTIC line col message" (0-based, as the client holds
-- them), then one per code action offered at the first diagnostic, "ACTION title", and "DONE".
vim.cmd("filetype on")
local out = assert(io.open(os.getenv("TYPOFIX_OUT"), "w"))
local file = os.getenv("TYPOFIX_FILE")
vim.cmd("edit " .. vim.fn.fnameescape(file))
local client_id = vim.lsp.start_client({
  name = "typofix",
  cmd = { os.getenv("TYPOFIX"), "lsp" },
  root_dir = vim.fn.fnamemodify(file, ":p:h"),
})
vim.lsp.buf_attach_client(0, client_id)
local found = vim.wait(240000, function() return #vim.diagnostic.get(0) > 0 end, 50)
if not found then
  out:write("TIMEOUT waiting for diagnostics\n")
end
local diagnostics = vim.diagnostic.get(0)
table.sort(diagnostics, function(a, b) return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col) end)
for _, d in ipairs(diagnostics) do
  out:write(string.format("DIAGNOSTIC %d %d %s\n", d.lnum, d.col, d.message))
end
if #diagnostics > 0 then
  local first = diagnostics[1]
  vim.api.nvim_win_set_cursor(0, { first.lnum + 1, first.col })
  local params = vim.lsp.util.make_range_params()
  params.context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics() }
  local answers = vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, 60000) or {}
  for _, answer in pairs(answers) do
    for _, action in ipairs(answer.result or {}) do
      out:write(string.format("ACTION %s\n", action.title))
    end
  end
end
out:write("DONE\n")
out:close()
vim.lsp.stop_client(client_id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
vim.cmd("qa!")
