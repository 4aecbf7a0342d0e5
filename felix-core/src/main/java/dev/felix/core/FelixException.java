package dev.felix.core;

/** Carries a {@link FelixError} through code paths that throw. */
public class FelixException extends Exception {

    private final FelixError error;

    public FelixException(FelixError error) {
        super(error.toString());
        this.error = error;
    }

    public FelixException(ErrorCode code, String message) {
        this(FelixError.of(code, message));
    }

    public FelixError error() {
        return error;
    }

    public ErrorCode code() {
        return error.code();
    }
}
