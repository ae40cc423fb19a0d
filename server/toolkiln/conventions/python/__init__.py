"""Python modules run in toolkiln's workers (`execute(params)`, llm-functions' `run()`), python-fire
scripts and plain `__main__` scripts.
"""
