package io.xrpc.testing;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

public class TypesServiceImpl implements TypesService {
    public final AtomicInteger nothingCalls = new AtomicInteger();

    @Override
    public int addInts(int a, int b) {
        return a + b;
    }

    @Override
    public long addLongs(long a, Long b) {
        return a + b;
    }

    @Override
    public double scale(double v, float f) {
        return v * f;
    }

    @Override
    public boolean not(boolean b) {
        return !b;
    }

    @Override
    public short shortOf(short s) {
        return (short) (s + 1);
    }

    @Override
    public byte byteOf(byte b) {
        return (byte) (b - 1);
    }

    @Override
    public char charOf(char c) {
        return Character.toUpperCase(c);
    }

    @Override
    public Integer boxedOrNull(Integer v) {
        return v == null ? null : v * 2;
    }

    @Override
    public String echo(String s) {
        return s;
    }

    @Override
    public String join(String a, String b, String c) {
        return a + "|" + b + "|" + c;
    }

    @Override
    public int[] reverse(int[] values) {
        int[] r = new int[values.length];
        for (int i = 0; i < values.length; i++) {
            r[i] = values[values.length - 1 - i];
        }
        return r;
    }

    @Override
    public String[] upper(String[] values) {
        String[] r = new String[values.length];
        for (int i = 0; i < values.length; i++) {
            r[i] = values[i] == null ? null : values[i].toUpperCase();
        }
        return r;
    }

    @Override
    public byte[] bytes(byte[] data) {
        return data;
    }

    @Override
    public List<String> list(List<String> values) {
        List<String> r = new ArrayList<>(values);
        r.add("end");
        return r;
    }

    @Override
    public Map<String, Integer> map(Map<String, Integer> values) {
        Map<String, Integer> r = new LinkedHashMap<>();
        values.forEach((k, v) -> r.put(k, v + 1));
        return r;
    }

    @Override
    public Set<Long> set(Set<Long> values) {
        Set<Long> r = new TreeSet<>(values);
        r.add(-1L);
        return r;
    }

    @Override
    public Dtos.Person person(Dtos.Person p) {
        return p;
    }

    @Override
    public List<Dtos.Person> people(int n) {
        List<Dtos.Person> r = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            r.add(Dtos.samplePerson(i));
        }
        return r;
    }

    @Override
    public Dtos.Level flip(Dtos.Level level) {
        return level == Dtos.Level.LOW ? Dtos.Level.HIGH : Dtos.Level.LOW;
    }

    @Override
    public BigDecimal add(BigDecimal a, BigDecimal b) {
        return a.add(b);
    }

    @Override
    public LocalDate nextDay(LocalDate d) {
        return d.plusDays(1);
    }

    @Override
    public LocalDateTime plusHour(LocalDateTime t) {
        return t.plusHours(1);
    }

    @Override
    public ZonedDateTime zoned(ZonedDateTime t) {
        return t;
    }

    @Override
    public Duration twice(Duration d) {
        return d.multipliedBy(2);
    }

    @Override
    public void nothing(String s) {
        nothingCalls.incrementAndGet();
    }

    @Override
    public String nullString() {
        return null;
    }

    @Override
    public String fail(String message) {
        throw new IllegalStateException(message);
    }

    @Override
    public CompletableFuture<Dtos.Person> personAsync(long id) {
        return CompletableFuture.supplyAsync(() -> Dtos.samplePerson(id));
    }

    @Override
    public CompletableFuture<Void> voidAsync() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<String> failAsync(String message) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(message));
    }

    /** Public, but not part of the interface: must never be callable remotely. */
    public String secret() {
        return "leaked";
    }
}
