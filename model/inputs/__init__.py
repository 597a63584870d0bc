"""What users give: profile, workload and signature objects, their readers, documents and value spreads."""
