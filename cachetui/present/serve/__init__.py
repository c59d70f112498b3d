"""What a served session is told, and how it names sources to its visitors."""
