"""RWGBench generation: the methods of §5.2 by name (`methods`), the records they read (`records`), their prompt
templates (`prompts`, ``templates/*.txt``), the one-request methods (`single_prompt`), `workflow`, and how
`sciwrite generate rwgbench` plans a run (`plan`)."""
