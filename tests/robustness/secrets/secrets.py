# A training script holding secrets goblin must never print (tests/robustness).
import os
import torch
from torch.utils.data import DataLoader

os.environ["WANDB_API_KEY"] = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
os.environ.setdefault("DB_PASSWORD", "pw-Env-Only-42")
AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMIK7MDENGbPxRfiCYSECRETKEY01"
api_key = "0123456789abcdef0123456789abcdef"
REPORT_URL = "https://trainer:Sup3rS3cretPw@metrics.example.com/push"

model = torch.nn.Linear(16, 16)
loader = DataLoader(range(64), batch_size=8, num_workers=0)
