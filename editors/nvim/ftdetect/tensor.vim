" *.tensor files are Tensor programs (tensorfit).
autocmd BufRead,BufNewFile *.tensor setfiletype tensor
