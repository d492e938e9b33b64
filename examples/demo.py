print("demo: not yet")
