"""The model client: streaming through the anthropic SDK, usage and cost accounting."""
