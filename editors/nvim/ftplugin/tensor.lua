-- Comments as the Tensor language writes them: `//` and `/* */`.
vim.bo.commentstring = '// %s'
vim.bo.comments = 's1:/*,mb:*,ex:*/,://'
vim.b.undo_ftplugin = 'setlocal commentstring< comments<'
