print("sandbox-psp: not yet")
