--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: analyses; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.analyses (
    code text NOT NULL,
    match_number integer NOT NULL,
    round_number integer NOT NULL,
    worlds integer,
    decisions text,
    error text,
    due_since bigint NOT NULL
);


--
-- Name: analyses_due_since_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.analyses_due_since_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: analyses_due_since_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.analyses_due_since_seq OWNED BY public.analyses.due_since;


--
-- Name: archived_matches; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.archived_matches (
    code text NOT NULL,
    number integer NOT NULL,
    seats text NOT NULL,
    archived_at double precision NOT NULL,
    invite_hash text
);


--
-- Name: chat; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.chat (
    code text NOT NULL,
    version bigint NOT NULL,
    match_number integer NOT NULL,
    step integer NOT NULL,
    at bigint NOT NULL,
    seat integer,
    name text NOT NULL,
    spectator boolean NOT NULL,
    text text,
    phrase text
);


--
-- Name: claims; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.claims (
    code text NOT NULL,
    match_number integer NOT NULL,
    idx integer NOT NULL,
    seat integer NOT NULL,
    answer text NOT NULL
);


--
-- Name: handoffs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.handoffs (
    code text NOT NULL,
    seat integer NOT NULL,
    secret_hash text NOT NULL,
    expires_at bigint NOT NULL
);


--
-- Name: leases; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.leases (
    backend integer NOT NULL,
    started timestamp with time zone NOT NULL,
    renewed timestamp with time zone NOT NULL
);


--
-- Name: matches; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.matches (
    code text NOT NULL,
    number integer NOT NULL,
    seed bigint NOT NULL,
    rules text NOT NULL,
    over boolean DEFAULT false NOT NULL,
    winning_team integer,
    rounds integer
);


--
-- Name: moves; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.moves (
    code text NOT NULL,
    number integer NOT NULL,
    idx integer NOT NULL,
    move text NOT NULL,
    version bigint NOT NULL
);


--
-- Name: retention_seen; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.retention_seen (
    code text NOT NULL,
    status text NOT NULL,
    version bigint NOT NULL,
    seen_at double precision NOT NULL
);


--
-- Name: schema_version; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_version (
    version integer NOT NULL
);


--
-- Name: seats; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.seats (
    code text NOT NULL,
    seat integer NOT NULL,
    name text,
    kind text NOT NULL,
    token_hash text
);


--
-- Name: tables; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tables (
    code text NOT NULL,
    options text NOT NULL,
    host_seat integer NOT NULL,
    status text NOT NULL,
    version bigint NOT NULL,
    match_number integer NOT NULL,
    settings text DEFAULT '{}'::text NOT NULL,
    paused boolean DEFAULT false NOT NULL,
    round_end integer DEFAULT 0 NOT NULL
);


--
-- Name: analyses due_since; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.analyses ALTER COLUMN due_since SET DEFAULT nextval('public.analyses_due_since_seq'::regclass);


--
-- Data for Name: analyses; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.analyses VALUES ('EXW6EN', 1, 1, NULL, NULL, NULL, 1);
INSERT INTO public.analyses VALUES ('EXW6EN', 1, 2, NULL, NULL, NULL, 2);
INSERT INTO public.analyses VALUES ('EXW6EN', 1, 3, NULL, NULL, NULL, 3);
INSERT INTO public.analyses VALUES ('EXW6EN', 1, 4, NULL, NULL, NULL, 4);
INSERT INTO public.analyses VALUES ('EXW6EN', 1, 5, NULL, NULL, NULL, 5);
INSERT INTO public.analyses VALUES ('EXW6EN', 1, 6, NULL, NULL, NULL, 6);
INSERT INTO public.analyses VALUES ('EXW6EN', 1, 7, NULL, NULL, NULL, 7);
INSERT INTO public.analyses VALUES ('EXW6EN', 1, 8, NULL, NULL, NULL, 8);
INSERT INTO public.analyses VALUES ('EXW6EN', 1, 9, NULL, NULL, NULL, 9);
INSERT INTO public.analyses VALUES ('EXW6EN', 1, 10, NULL, NULL, NULL, 10);
INSERT INTO public.analyses VALUES ('EXW6EN', 1, 11, NULL, NULL, NULL, 11);
INSERT INTO public.analyses VALUES ('EXW6EN', 1, 12, NULL, NULL, NULL, 12);
INSERT INTO public.analyses VALUES ('EXW6EN', 1, 13, NULL, NULL, NULL, 13);


--
-- Data for Name: archived_matches; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: chat; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: claims; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: handoffs; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: leases; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.leases VALUES (20664, '2026-12-03 09:31:28.31403+00', '2026-12-03 09:31:40.447176+00');


--
-- Data for Name: matches; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.matches VALUES ('EXW6EN', 1, 373102198990848465, '{"players":2,"decks":1,"hooking":true,"tribute":true,"bomb_ladder":"listed"}', true, 1, 13);


--
-- Data for Name: moves; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.moves VALUES ('EXW6EN', 1, 0, '567', 5);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 1, '9TJ', 6);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 2, '444', 7);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 3, '777', 8);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 4, '888', 9);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 5, 'pass', 10);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 6, '33', 11);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 7, '66', 12);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 8, 'AA', 13);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 9, 'BR', 14);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 10, 'pass', 15);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 11, 'AA', 16);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 12, 'QQQ', 17);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 13, 'pass', 18);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 14, '5', 19);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 15, 'pass', 20);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 16, 'T', 21);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 17, 'J', 22);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 18, '2', 23);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 19, 'pass', 24);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 20, 'KKK', 25);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 21, 'pass', 26);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 22, '9TJ', 27);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 23, 'pass', 28);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 24, '222', 29);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 25, '4', 31);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 26, '55', 32);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 27, '77', 33);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 28, 'TTT', 34);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 29, 'JJJ', 35);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 30, '44A', 36);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 31, 'pass', 37);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 32, '888', 38);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 33, '999', 39);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 34, '2222', 40);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 35, '44A', 41);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 36, 'pass', 42);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 37, '5', 43);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 38, '6', 44);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 39, 'pass', 45);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 40, '8', 46);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 41, 'Q', 47);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 42, 'pass', 48);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 43, 'A', 49);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 44, '3', 50);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 45, 'pass', 51);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 46, 'R', 52);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 47, 'pass', 53);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 48, 'T', 54);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 49, 'pass', 55);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 50, 'KK', 56);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 51, 'pass', 57);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 52, '666', 58);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 53, 'pass', 59);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 54, 'QQQ', 60);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 55, 'pass', 61);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 56, '333', 62);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 57, '6', 64);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 58, '99', 65);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 59, 'JJ', 66);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 60, 'QQ', 67);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 61, 'AA', 68);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 62, '6666', 69);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 63, '4444', 70);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 64, 'pass', 71);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 65, '22', 72);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 66, 'pass', 73);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 67, '778899', 74);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 68, 'KKK', 75);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 69, 'pass', 76);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 70, 'Q', 77);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 71, 'K', 78);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 72, 'pass', 79);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 73, 'TJQ', 80);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 74, 'TTT', 81);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 75, 'pass', 82);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 76, '22', 83);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 77, '33', 84);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 78, '77', 85);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 79, '555', 86);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 80, 'pass', 87);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 81, '3', 88);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 82, 'A', 89);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 83, 'R', 90);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 84, '4', 92);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 85, '56789', 93);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 86, '6789T', 94);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 87, '44A', 95);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 88, 'pass', 96);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 89, '456789TJQ', 97);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 90, 'pass', 98);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 91, '3', 99);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 92, '33', 100);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 93, 'pass', 101);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 94, '22', 102);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 95, 'TT', 103);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 96, 'QQ', 104);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 97, 'pass', 105);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 98, '567', 106);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 99, 'pass', 107);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 100, '9', 108);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 101, 'pass', 109);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 102, 'AA', 110);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 103, 'pass', 111);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 104, '5', 112);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 105, 'pass', 113);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 106, 'JJJ', 114);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 107, 'pass', 115);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 108, 'KKK', 116);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 109, 'pass', 117);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 110, 'K', 118);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 111, 'A', 119);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 112, 'BR', 120);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 113, '3', 122);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 114, '334455', 123);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 115, '8899TT', 124);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 116, 'pass', 125);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 117, '345', 126);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 118, 'QKA', 127);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 119, 'pass', 128);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 120, 'QQ', 129);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 121, '66', 130);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 122, '777', 131);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 123, 'pass', 132);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 124, '4', 133);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 125, 'T', 134);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 126, '6', 135);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 127, 'JJJ', 136);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 128, 'pass', 137);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 129, '22', 138);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 130, 'AA', 139);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 131, 'KKK', 140);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 132, 'pass', 141);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 133, '567', 142);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 134, '89T', 143);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 135, 'BR', 144);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 136, 'pass', 145);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 137, 'J', 146);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 138, 'Q', 147);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 139, 'A', 148);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 140, '3', 150);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 141, '789', 151);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 142, 'TJQ', 152);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 143, '44A', 153);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 144, 'pass', 154);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 145, 'KK', 155);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 146, 'AA', 156);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 147, '3333', 157);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 148, 'pass', 158);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 149, 'TT', 159);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 150, 'KK', 160);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 151, 'pass', 161);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 152, '445566', 162);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 153, 'pass', 163);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 154, 'TJQ', 164);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 155, 'pass', 165);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 156, '7', 166);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 157, 'pass', 167);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 158, 'pass', 168);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 159, 'R', 169);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 160, 'pass', 170);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 161, '222', 171);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 162, 'pass', 172);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 163, '888', 173);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 164, 'pass', 174);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 165, '999', 175);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 166, '2', 177);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 167, '56789TJQK', 178);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 168, '333', 179);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 169, '44A', 180);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 170, 'pass', 181);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 171, '8', 182);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 172, 'R', 183);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 173, 'pass', 184);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 174, '2', 185);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 175, '22', 186);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 176, '789', 187);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 177, '89T', 188);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 178, 'pass', 189);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 179, 'TTJJQQKK', 190);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 180, 'pass', 191);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 181, '7', 192);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 182, 'Q', 193);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 183, 'A', 194);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 184, 'B', 195);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 185, '555', 196);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 186, 'pass', 197);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 187, '666', 198);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 188, 'pass', 199);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 189, '44A', 200);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 190, '2', 202);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 191, '555', 203);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 192, '666', 204);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 193, 'KKK', 205);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 194, '7777', 206);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 195, '44A', 207);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 196, 'pass', 208);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 197, '22', 209);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 198, 'JJ', 210);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 199, 'TTT', 211);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 200, '8888', 212);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 201, 'pass', 213);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 202, '5', 214);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 203, 'A', 215);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 204, '9', 216);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 205, 'pass', 217);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 206, 'pass', 218);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 207, 'T', 219);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 208, 'K', 220);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 209, '9', 221);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 210, '99', 222);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 211, '22', 223);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 212, 'QQ', 224);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 213, 'pass', 225);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 214, '333', 226);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 215, 'pass', 227);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 216, 'BR', 228);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 217, 'pass', 229);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 218, '44A', 230);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 219, '3', 232);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 220, 'KKK', 233);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 221, 'AAA', 234);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 222, '7777', 235);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 223, 'BR', 236);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 224, 'pass', 237);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 225, '3', 238);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 226, 'pass', 239);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 227, 'T', 240);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 228, 'TT', 241);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 229, 'T', 242);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 230, '6', 243);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 231, 'pass', 244);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 232, 'Q', 245);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 233, 'pass', 246);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 234, 'A', 247);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 235, '222', 248);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 236, 'pass', 249);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 237, '44', 250);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 238, '88', 251);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 239, 'JJ', 252);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 240, 'QQQ', 253);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 241, 'pass', 254);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 242, '345', 255);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 243, '555', 256);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 244, 'pass', 257);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 245, '88', 258);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 246, 'pass', 259);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 247, '666', 260);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 248, 'pass', 261);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 249, '999', 262);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 250, '8', 264);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 251, '789TJQK', 265);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 252, '222', 266);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 253, 'AAA', 267);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 254, '6666', 268);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 255, 'pass', 269);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 256, '33', 270);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 257, '44', 271);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 258, 'QQ', 272);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 259, 'pass', 273);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 260, '89TJ', 274);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 261, '9TJQ', 275);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 262, '555', 276);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 263, 'pass', 277);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 264, '9', 278);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 265, 'pass', 279);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 266, 'J', 280);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 267, 'pass', 281);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 268, 'R', 282);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 269, 'pass', 283);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 270, 'KKK', 284);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 271, 'pass', 285);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 272, '44A', 286);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 273, '2', 288);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 274, 'TTTT', 289);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 275, 'JJJJ', 290);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 276, 'pass', 291);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 277, '345', 292);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 278, '8888', 293);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 279, '9999', 294);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 280, 'pass', 295);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 281, '5', 296);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 282, 'pass', 297);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 283, '444', 298);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 284, '666', 299);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 285, '2222', 300);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 286, 'QQQQ', 301);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 287, 'pass', 302);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 288, '77', 303);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 289, 'KK', 304);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 290, 'AA', 305);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 291, '333', 306);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 292, 'BR', 307);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 293, 'pass', 308);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 294, 'K', 309);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 295, 'pass', 310);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 296, 'A', 311);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 297, '3', 313);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 298, '345', 314);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 299, 'TJQ', 315);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 300, 'QKA', 316);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 301, 'pass', 317);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 302, '4567', 318);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 303, 'pass', 319);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 304, '6', 320);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 305, '66', 321);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 306, '345', 322);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 307, 'pass', 323);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 308, '88', 324);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 309, 'TT', 325);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 310, 'AA', 326);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 311, 'JJJ', 327);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 312, '2222', 328);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 313, 'pass', 329);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 314, 'T', 330);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 315, 'K', 331);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 316, 'B', 332);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 317, 'pass', 333);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 318, 'Q', 334);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 319, 'pass', 335);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 320, 'K', 336);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 321, 'pass', 337);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 322, 'R', 338);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 323, 'pass', 339);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 324, '777', 340);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 325, 'pass', 341);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 326, '999', 342);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 327, '3', 344);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 328, '9TJ', 345);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 329, '555', 346);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 330, 'KKK', 347);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 331, 'AAA', 348);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 332, 'pass', 349);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 333, '3', 350);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 334, '33', 351);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 335, '678', 352);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 336, '789', 353);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 337, '2222', 354);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 338, 'BR', 355);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 339, 'pass', 356);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 340, '6', 357);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 341, '66', 358);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 342, '345', 359);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 343, 'TTT', 360);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 344, 'pass', 361);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 345, '7', 362);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 346, 'Q', 363);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 347, 'QQ', 364);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 348, 'JQK', 365);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 349, 'pass', 366);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 350, '9', 367);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 351, 'J', 368);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 352, '44A', 369);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 353, 'pass', 370);
INSERT INTO public.moves VALUES ('EXW6EN', 1, 354, 'J', 371);


--
-- Data for Name: retention_seen; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: schema_version; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.schema_version VALUES (6);


--
-- Data for Name: seats; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.seats VALUES ('EXW6EN', 0, 'Host', 'human', 'e68dfb1c0028651fcfea32d132743b613fc20bb7377d30dfb64b7642def926a6');
INSERT INTO public.seats VALUES ('EXW6EN', 1, 'Bot 2', 'bot', NULL);
INSERT INTO public.seats VALUES ('7WW8BG', 0, 'Lobby Lu', 'human', '30c4b61c0447539eeaf15aa1480c04e884a95fc39b05079c10b2048d6963617a');
INSERT INTO public.seats VALUES ('7WW8BG', 1, NULL, 'empty', NULL);
INSERT INTO public.seats VALUES ('7WW8BG', 2, NULL, 'empty', NULL);
INSERT INTO public.seats VALUES ('7WW8BG', 3, NULL, 'empty', NULL);
INSERT INTO public.seats VALUES ('7WW8BG', 4, NULL, 'empty', NULL);
INSERT INTO public.seats VALUES ('7WW8BG', 5, NULL, 'empty', NULL);


--
-- Data for Name: tables; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.tables VALUES ('EXW6EN', '{"players":2,"decks":1,"hooking":true,"tribute":true,"bomb_ladder":"listed","turn_seconds":30.0,"hook_seconds":1.0,"hook_mode":"fast","bot":"strong"}', 0, 'finished', 372, 1, '{"round_pause_seconds":15.0,"card_counter":true,"spectator_chat":false}', false, 0);
INSERT INTO public.tables VALUES ('7WW8BG', '{"players":6,"decks":3,"hooking":true,"tribute":true,"bomb_ladder":"listed","turn_seconds":30.0,"hook_seconds":0.2,"hook_mode":"fair","bot":"strong"}', 0, 'lobby', 1, 0, '{"round_pause_seconds":15.0,"card_counter":true,"spectator_chat":false}', false, 0);


--
-- Name: analyses_due_since_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.analyses_due_since_seq', 13, true);


--
-- Name: analyses analyses_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.analyses
    ADD CONSTRAINT analyses_pkey PRIMARY KEY (code, match_number, round_number);


--
-- Name: archived_matches archived_matches_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.archived_matches
    ADD CONSTRAINT archived_matches_pkey PRIMARY KEY (code, number);


--
-- Name: chat chat_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat
    ADD CONSTRAINT chat_pkey PRIMARY KEY (code, version);


--
-- Name: claims claims_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.claims
    ADD CONSTRAINT claims_pkey PRIMARY KEY (code, match_number, idx, seat);


--
-- Name: handoffs handoffs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.handoffs
    ADD CONSTRAINT handoffs_pkey PRIMARY KEY (code, seat);


--
-- Name: leases leases_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leases
    ADD CONSTRAINT leases_pkey PRIMARY KEY (backend);


--
-- Name: matches matches_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.matches
    ADD CONSTRAINT matches_pkey PRIMARY KEY (code, number);


--
-- Name: moves moves_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.moves
    ADD CONSTRAINT moves_pkey PRIMARY KEY (code, number, idx);


--
-- Name: retention_seen retention_seen_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.retention_seen
    ADD CONSTRAINT retention_seen_pkey PRIMARY KEY (code);


--
-- Name: seats seats_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.seats
    ADD CONSTRAINT seats_pkey PRIMARY KEY (code, seat);


--
-- Name: tables tables_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tables
    ADD CONSTRAINT tables_pkey PRIMARY KEY (code);


--
-- Name: analyses_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX analyses_due ON public.analyses USING btree (due_since) WHERE ((decisions IS NULL) AND (error IS NULL));


--
-- Name: archived_matches_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX archived_matches_at ON public.archived_matches USING btree (archived_at);


--
-- Name: tables_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tables_status ON public.tables USING btree (status);


--
-- PostgreSQL database dump complete
--


