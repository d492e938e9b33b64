"""The local emulator."""
