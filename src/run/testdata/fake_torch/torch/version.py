"""TEST DOUBLE (see torch/__init__.py): torch.version."""
cuda = None
hip = None
