"""A valid switch configuration the control-plane tests start from."""
W = [{"worker_id": i, "port": i + 1, "mac": f"02:00:00:00:00:0{i + 1}", "ip": f"10.0.0.{i + 1}",
      "udp_port": 40000 + i} for i in range(3)]
GOOD = {"switch": {"grpc_addr": "127.0.0.1:50001", "thrift_port": 9091},
        "jobs": [{"job_id": 1, "slot_base": 0, "num_slots": 16, "workers": W[:2]},
                 {"job_id": 2, "slot_base": 16, "num_slots": 16, "mgid": 9,
                  "workers": [dict(W[2], worker_id=0)]}],
        "l2": [{"mac": "02:00:00:00:00:01", "port": 1}],
        "broadcast": {"mgid": 1000, "ports": [1, 2, 3]}}
