/// The seedforge version written into every manifest.
public enum SeedForgeVersion {
    public static let current = "0.1.0"
}
