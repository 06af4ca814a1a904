"""SciIG's metrics: lexical, BERTScore, BLEURT, contextual relevance, keyphrases, SummaC, QA, citations,
perplexity, the judge rubric, the suite and its report."""
