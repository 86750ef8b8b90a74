pytest_plugins = ["nb_agent.testing.pytest_plugin"]
