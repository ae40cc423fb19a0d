"""JavaScript read as text: exported `run` functions with JSDoc (llm-functions), agents' `tools.js`,
and the small JS tokenizer the Node conventions share.
"""
