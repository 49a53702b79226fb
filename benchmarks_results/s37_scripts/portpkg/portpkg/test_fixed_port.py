# A test that listens on a fixed port, as test_recipes' plugin tests do. The fast-path run waits a little before
# binding, so that it is the one that finds the port taken when both runs go at once, and the one-at-a-time runs
# both pass.
import os
import socket
import time


def test_listens_on_a_fixed_port():
    if os.environ.get("THUNDER_FASTPATH") != "0":
        time.sleep(1)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 23471))
        s.listen()
        time.sleep(3)
