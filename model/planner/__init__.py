"""The purchase question: requirements and candidates in, the cheapest machine that meets them out."""
